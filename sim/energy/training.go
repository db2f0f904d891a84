package energy

// Training is the accounting the published LLM trainings report: energy
// = GPU-hours × watts per GPU × PUE, carbon = energy × intensity. It
// returns kWh and tonnes of CO₂eq for gPerKWh g CO₂eq per kWh.
func Training(gpuHours, watts, pue, gPerKWh float64) (kwh, tCO2 float64) {
	kwh = gpuHours * watts / 1000 * pue
	return kwh, kwh * gPerKWh / 1e6
}

package arena

// SetSearchShortcuts turns the searches' shortcuts (searchShortcuts) on
// or off and returns the previous setting.
// SetArrivalRebase sets arrivalRebase (0: off) and returns the previous
// setting; ArrivalRebases is the number of rebases it caused so far.
func SetArrivalRebase(n int) int {
	prev := arrivalRebase
	arrivalRebase = n
	return prev
}

func ArrivalRebases() int64 { return arrivalRebases.Load() }

func SetSearchShortcuts(on bool) bool {
	prev := searchShortcuts
	searchShortcuts = on
	return prev
}

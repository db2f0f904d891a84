package arena

// SetUpgradeShortcuts turns the upgrade trial's memo and direct outcomes
// on or off and returns the previous setting.
func SetUpgradeShortcuts(on bool) bool {
	prev := upgradeShortcuts
	upgradeShortcuts = on
	return prev
}

package arena

// SetSearchShortcuts turns the searches' shortcuts (searchShortcuts) on
// or off and returns the previous setting.
func SetSearchShortcuts(on bool) bool {
	prev := searchShortcuts
	searchShortcuts = on
	return prev
}

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

// SetCheckTwinRecs turns checkTwinRecs on or off and returns the previous
// setting; TwinChecks returns the comparisons and mismatches so far.
func SetCheckTwinRecs(on bool) bool {
	prev := checkTwinRecs
	checkTwinRecs = on
	return prev
}

func TwinChecks() (checks, mismatches int64) { return twinChecks.Load(), twinMismatches.Load() }

// SetCheckQuotas turns checkQuotas on or off and returns the previous
// setting; QuotaChecks returns the jobs compared and mismatches so far.
func SetCheckQuotas(on bool) bool {
	prev := checkQuotas
	checkQuotas = on
	return prev
}

func QuotaChecks() (checks, mismatches int64) { return quotaChecks.Load(), quotaMismatches.Load() }

// TwinWalks returns the grouped walks compared with seenAt's walk and the
// mismatches so far (with SetCheckTwinRecs).
func TwinWalks() (walks, mismatches int64) { return twinWalks.Load(), twinWalkMismatches.Load() }

// SnapshotStats returns the snapshots whose stats were inherited and
// those whose stats were a scan, so far.
func SnapshotStats() (inherited, scanned int64) { return statsInherited.Load(), statsScans.Load() }

// SetCheckFixupSkips turns checkFixupSkips on or off and returns the
// previous setting; FixupSkips returns the jobs skipped and mismatches.
func SetCheckFixupSkips(on bool) bool {
	prev := checkFixupSkips
	checkFixupSkips = on
	return prev
}

func FixupSkips() (skips, mismatches int64) { return fixupSkips.Load(), fixupSkipMismatches.Load() }

// SetCheckDowngrade turns checkDowngrade on or off and returns the previous
// setting; DowngradeChecks returns the searches compared and those that
// differed so far.
func SetCheckDowngrade(on bool) bool {
	prev := checkDowngrade
	checkDowngrade = on
	return prev
}

func DowngradeChecks() (checks, mismatches int64) {
	return downgradeChecks.Load(), downgradeMismatches.Load()
}

// SetCheckHTCMemo turns checkHTCMemo on or off and returns the previous
// setting; HTCMemoChecks returns the held outcomes compared and those
// that differed so far.
func SetCheckHTCMemo(on bool) bool {
	prev := checkHTCMemo
	checkHTCMemo = on
	return prev
}

func HTCMemoChecks() (checks, mismatches int64) { return htcMemoChecks.Load(), htcMemoMismatch.Load() }

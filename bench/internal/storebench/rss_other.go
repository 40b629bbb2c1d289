//go:build !linux

package storebench

// resetPeakRSS and peakRSS measure nothing off Linux: the reports show "-".
func resetPeakRSS() int64 { return 0 }
func peakRSS() int64      { return 0 }

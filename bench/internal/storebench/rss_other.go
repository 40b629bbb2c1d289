//go:build !linux

package storebench

// resetPeakRSS, peakRSS and watchAnon measure nothing off Linux: the
// reports show "-".
func resetPeakRSS() int64            { return 0 }
func peakRSS() int64                 { return 0 }
func watchAnon() (stop func() int64) { return func() int64 { return 0 } }

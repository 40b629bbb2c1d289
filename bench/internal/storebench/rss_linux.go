//go:build linux

package storebench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// resetPeakRSS returns the resident bytes now and resets the peak
// (VmHWM) to them, where the kernel allows it (/proc/self/clear_refs).
func resetPeakRSS() int64 {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return procStatus("VmRSS:")
}

// peakRSS returns the peak resident bytes since resetPeakRSS (or since
// the process started, if the reset was refused).
func peakRSS() int64 { return procStatus("VmHWM:") }

// procStatus reads one "kB" field of /proc/self/status (0 if missing).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

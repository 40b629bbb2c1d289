//go:build linux

package storebench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"
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

// anonSample is how often watchAnon reads the anonymous resident set.
const anonSample = 50 * time.Millisecond

// watchAnon samples the process's anonymous resident set (RssAnon: heap
// and stacks, not the pages of mmapped files) until the returned function
// is called, which returns the largest sample. The kernel keeps no peak
// of it, so a spike shorter than anonSample may be missed.
func watchAnon() (stop func() int64) {
	quit, done := make(chan struct{}), make(chan int64)
	go func() {
		t := time.NewTicker(anonSample)
		defer t.Stop()
		peak := procStatus("RssAnon:")
		for {
			select {
			case <-quit:
				done <- max(peak, procStatus("RssAnon:"))
				return
			case <-t.C:
				peak = max(peak, procStatus("RssAnon:"))
			}
		}
	}()
	return func() int64 {
		close(quit)
		return <-done
	}
}

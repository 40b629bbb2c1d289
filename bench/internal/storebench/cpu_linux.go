//go:build linux

package storebench

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sampleCPU reads the machine's busy time from the first line of
// /proc/stat (user, nice, system, irq, softirq and steal: steal is a
// virtual machine's CPU given to others by its host) and this process's
// user and system time.
func sampleCPU() cpuSample {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuSample{}
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSample{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuSample{}
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system (idle iowait) irq softirq steal
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return cpuSample{}
		}
		ticks += n
	}
	return cpuSample{machine: time.Duration(ticks) * clockTick, self: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ok: true}
}

//go:build !linux

package storebench

import "time"

// cpuSample is unknown off Linux: passes are never found busy, and the
// reports show "-" for the CPU others used.
type cpuSample struct {
	machine, self time.Duration
	ok            bool
}

func sampleCPU() cpuSample { return cpuSample{} }

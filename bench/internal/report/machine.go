package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Header writes the lines every run starts with: date, machine, Go version,
// then one line per dataset (name and size as the caller describes it).
func Header(w io.Writer, datasets []string) {
	fmt.Fprintf(w, "kvbench  %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "machine  %s/%s, %d CPUs (GOMAXPROCS %d), %s\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), CPUModel())
	fmt.Fprintf(w, "go       %s\n", runtime.Version())
	for _, d := range datasets {
		fmt.Fprintf(w, "dataset  %s\n", d)
	}
	fmt.Fprintln(w)
}

// CPUModel returns the CPU model name from /proc/cpuinfo, or "unknown CPU".
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// Package quiet silences libraries that print to stdout (go-tpc's dbgen,
// go-ycsb's workload), which would break kvbench's result tables.
package quiet

import (
	"os"
	"sync"
)

var mu sync.Mutex

// Stdout runs fn with os.Stdout pointed at the null device. Writers that
// captured os.Stdout before the call (kvbench's tables) are not affected.
// Calls are serialised.
func Stdout(fn func() error) error {
	mu.Lock()
	defer mu.Unlock()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return fn()
	}
	defer null.Close()
	saved := os.Stdout
	os.Stdout = null
	defer func() { os.Stdout = saved }()
	return fn()
}

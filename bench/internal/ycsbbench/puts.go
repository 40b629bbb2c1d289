package ycsbbench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"
)

// PutKeySize and PutValueSize are the sizes of the cells Puts writes.
const (
	PutKeySize   = 16
	PutValueSize = 100
)

// PutsResult is the Puts per second of one engine from one number of
// goroutines.
type PutsResult struct {
	Engine     string
	Sync       bool
	Goroutines int
	Puts       int
	OpsPerSec  float64
	// WALWrites is the writes kvenc made to its WAL files in the pass
	// (Stats.WALWrites; 0 for the other engines): Puts / WALWrites is
	// the average group commit.
	WALWrites int64
}

// walWriter is a Store that counts its WAL writes.
type walWriter interface{ walWrites() int64 }

// Puts measures single-cell Puts (random PutKeySize-byte keys,
// PutValueSize-byte random values; on kvenc each an Apply of a one-cell
// batch) from each count of goroutines in goroutines, every goroutine
// writing as fast as it can for d, into a fresh store of e with Config c
// each time (in a subdirectory of dir, removed when done). After each pass
// every goroutine's last Put is read back and checked.
func Puts(e Engine, dir string, c Config, goroutines []int, d time.Duration) ([]PutsResult, error) {
	var out []PutsResult
	for _, g := range goroutines {
		sub := filepath.Join(dir, fmt.Sprintf("%s-puts-%t-%d", e.Name, c.Sync, g))
		err := withStore(e, sub, c, func(s db) error {
			r, err := putPass(s.s, g, d)
			r.Engine, r.Sync = e.Name, c.Sync
			out = append(out, r)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func putPass(s Store, g int, d time.Duration) (PutsResult, error) {
	counts := make([]int, g)
	last := make([][2][]byte, g) // each goroutine's last key and value
	errs := make([]error, g)
	var wal0 int64
	if w, ok := s.(walWriter); ok {
		wal0 = w.walWrites()
	}
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for t := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(t), 0x9e3779b97f4a7c15))
			key, val := make([]byte, PutKeySize), make([]byte, PutValueSize)
			for time.Now().Before(deadline) {
				fill(rng, key)
				fill(rng, val)
				if err := s.Put(key, val); err != nil {
					errs[t] = err
					return
				}
				counts[t]++
			}
			last[t] = [2][]byte{key, val}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	r := PutsResult{Goroutines: g}
	if w, ok := s.(walWriter); ok {
		r.WALWrites = w.walWrites() - wal0
	}
	for t := range g {
		if errs[t] != nil {
			return r, fmt.Errorf("%d goroutines: %w", g, errs[t])
		}
		r.Puts += counts[t]
		if counts[t] == 0 {
			continue
		}
		v, err := s.Get(last[t][0])
		if err != nil {
			return r, fmt.Errorf("%d goroutines: reading the last Put back: %w", g, err)
		}
		if !bytes.Equal(v, last[t][1]) {
			return r, fmt.Errorf("%d goroutines: the last Put read back a different value", g)
		}
	}
	r.OpsPerSec = float64(r.Puts) / elapsed.Seconds()
	return r, nil
}

// fill overwrites b with random bytes.
func fill(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := i; j < min(i+8, len(b)); j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
}

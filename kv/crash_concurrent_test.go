package kv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The concurrent crash test is the crash test with crashWriters
// goroutines writing at once (their writes share WAL writes), each on
// keys of its own, killed at a random moment: after the reopen every
// writer's acknowledged writes are there, and of its one write in flight
// either all or nothing.

const (
	crashConcDirEnv = "KV_CRASH_CONC_DIR"
	crashWriters    = 4
	crashWriterKeys = 40
)

// crashConcChild writes until killed. Lines: "T <w> <key> <value>" before
// writer w's write, "A <w>" once it returned nil.
func crashConcChild(dir string, seed uint64) {
	o := crashOptions(dir)
	o.SyncWrites = seed%2 == 1
	s, err := Open(o)
	if err != nil {
		fmt.Printf("E open: %v\n", err)
		os.Exit(3)
	}
	var mu sync.Mutex // one line at a time on stdout
	say := func(format string, args ...any) {
		mu.Lock()
		os.Stdout.WriteString(fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for w := range crashWriters {
		go func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for n := 0; ; n++ {
				k := fmt.Sprintf("w%d/k%02d", w, rng.IntN(crashWriterKeys))
				v := fmt.Sprintf("s%d-%d-%s", seed, n, strings.Repeat("x", rng.IntN(80)))
				say("T %d %s %s\n", w, k, v)
				if err := s.Put([]byte(k), []byte(v)); err != nil {
					say("E %d: %v\n", w, err)
					os.Exit(3)
				}
				say("A %d\n", w)
			}
		}()
	}
	select {}
}

func TestCrashConcurrent(t *testing.T) {
	if dir := os.Getenv(crashConcDirEnv); dir != "" {
		seed, _ := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
		crashConcChild(dir, seed)
		return
	}
	rounds := 8
	if testing.Short() {
		rounds = 2
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2026, 31))
	m := model{}
	for round := range rounds {
		cmd, out := startCrashChild(t, "TestCrashConcurrent", crashConcDirEnv+"="+dir, fmt.Sprintf("%s=%d", crashSeedEnv, round+1))
		lines := childLines(out)
		var pending [crashWriters][2]string // each writer's write in flight: key, value
		killAt, acked, killed := 100+rng.IntN(1500), 0, false
		timeout := time.After(60 * time.Second)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				f := strings.SplitN(l, " ", 4)
				switch f[0] {
				case "T":
					w, _ := strconv.Atoi(f[1])
					pending[w] = [2]string{f[2], f[3]}
				case "A":
					w, _ := strconv.Atoi(f[1])
					m[pending[w][0]] = pending[w][1]
					pending[w] = [2]string{}
					if acked++; acked == killAt && !killed {
						_ = cmd.Process.Signal(syscall.SIGKILL)
						killed = true
					}
				default:
					require.Failf(t, "child failed", "round %d: %s", round, l)
				}
			case <-timeout:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				require.Failf(t, "child stuck", "round %d", round)
			}
		}
		_ = cmd.Wait()

		s := mustOpen(t, crashOptions(dir))
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err, "round %d: scan after crash", round)
		for _, kv := range got {
			k, v := kv[0], kv[1]
			w, _ := strconv.Atoi(k[1:2])
			if v != m[k] && pending[w][0] == k && pending[w][1] == v {
				m[k] = v // the write in flight made it
			}
		}
		require.Equal(t, m.rangeOf(nil, nil), got, "round %d: %d writes acknowledged, in flight %q", round, acked, pending)
		require.NoError(t, s.Close(), "round %d: close", round)
	}
	assert.NotEmpty(t, m)
}

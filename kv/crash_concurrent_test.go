package kv

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
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
// writer w's write, "A <w> ..." once it returned nil.
func crashConcChild(dir string, seed uint64) {
	o := crashOptions(dir)
	o.SyncWrites = seed%2 == 1
	crashWritersChild(o, seed, func(w, n int, rng *rand.Rand) (k, v, note string) {
		k = fmt.Sprintf("w%d/k%02d", w, rng.IntN(crashWriterKeys))
		v = fmt.Sprintf("s%d-%d-%s", seed, n, strings.Repeat("x", rng.IntN(80)))
		return k, v, k + " " + v
	})
}

// crashWritersChild opens a Store with o and runs crashWriters goroutines
// that Put until the process is killed: writer w's n-th Put is of what
// next returns (its rng seeded with seed and w), announced by the line
// "T <w> <note>" and acknowledged by "A <w> <note>" once it returned nil.
func crashWritersChild(o Options, seed uint64, next func(w, n int, rng *rand.Rand) (k, v, note string)) {
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
				k, v, note := next(w, n, rng)
				say("T %d %s\n", w, note)
				if err := s.Put([]byte(k), []byte(v)); err != nil {
					say("E %d: %v\n", w, err)
					os.Exit(3)
				}
				say("A %d %s\n", w, note)
			}
		}()
	}
	select {}
}

// readCrashChild passes each line of a crash child started by
// startCrashChild to on until the child's output ends; it kills the child
// when on returns true, and fails on a line starting "E" or a child
// running past a minute.
func readCrashChild(t *testing.T, cmd *exec.Cmd, out io.Reader, round int, on func(l string) (kill bool)) {
	t.Helper()
	lines := childLines(out)
	timeout := time.After(60 * time.Second)
	killed := false
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				return
			}
			if strings.HasPrefix(l, "E") {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				require.Failf(t, "child failed", "round %d: %s", round, l)
			}
			if on(l) && !killed {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killed = true
			}
		case <-timeout:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			require.Failf(t, "child stuck", "round %d", round)
		}
	}
}

func TestCrashConcurrent(t *testing.T) {
	rounds, dir, rng, ok := crashSetup(t, crashConcDirEnv, crashConcChild, 8, 2, 31)
	if !ok {
		return
	}
	m := model{}
	for round := range rounds {
		cmd, out := startCrashChild(t, "TestCrashConcurrent", crashConcDirEnv+"="+dir, fmt.Sprintf("%s=%d", crashSeedEnv, round+1))
		var pending [crashWriters][2]string // each writer's write in flight: key, value
		killAt, acked := 100+rng.IntN(1500), 0
		readCrashChild(t, cmd, out, round, func(l string) bool {
			f := strings.SplitN(l, " ", 4)
			w, _ := strconv.Atoi(f[1])
			switch f[0] {
			case "T":
				pending[w] = [2]string{f[2], f[3]}
			case "A":
				m[pending[w][0]] = pending[w][1]
				pending[w] = [2]string{}
				acked++
				return acked == killAt
			default:
				require.Failf(t, "child wrote", "round %d: %s", round, l)
			}
			return false
		})

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

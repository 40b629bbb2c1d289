package kv

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvenc/kvenc/internal/itertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The crash test re-executes the test binary as a child that writes to a
// store and reports every acknowledged write on stdout, kills it with
// SIGKILL at a random moment, reopens the store and checks that every
// acknowledged write is there (the one write in flight may or may not be)
// and that the store is consistent.

const (
	crashDirEnv  = "KV_CRASH_DIR"
	crashSeedEnv = "KV_CRASH_SEED"
)

func crashOptions(dir string) Options {
	o := testOptions(dir)
	o.MemstoreSize = 64 << 10
	o.CompactionTrigger = 2
	return o
}

// crashChild runs in the child process until it is killed. Protocol, one
// line per event:
//
//	T <n> <op>...   write n is about to run (P key val | D key | R start end |
//	                B key=val,key=,~start-end,...)
//	A <n>           write n returned nil
//	F, C            a Flush or Compact starts
func crashChild(dir string, seed uint64) {
	s, err := Open(crashOptions(dir))
	if err != nil {
		fmt.Printf("E open: %v\n", err)
		os.Exit(3)
	}
	s.dropAlways = seed%2 == 0 // Compact also drops Badger garbage: crash inside it too
	rng := rand.New(rand.NewPCG(seed, 99))
	pad := strings.Repeat("x", 80)
	for n := 0; ; n++ {
		key := func() string { return fmt.Sprintf("k%03d", rng.IntN(300)) }
		val := fmt.Sprintf("s%d-%d-%s", seed, n, pad[:rng.IntN(len(pad))])
		var line string
		var do func() error
		switch r := rng.IntN(10); {
		case r < 6:
			k := key()
			line, do = "P "+k+" "+val, func() error { return s.Put([]byte(k), []byte(val)) }
		case r < 7:
			k := key()
			line, do = "D "+k, func() error { return s.Delete([]byte(k)) }
		case r < 8:
			k := key()
			e := fmt.Sprintf("k%03d", rng.IntN(300)+rng.IntN(20))
			line, do = "R "+k+" "+e, func() error { return s.DeleteRange([]byte(k), []byte(e)) }
		default:
			b := s.NewBatch()
			var parts []string
			for i := rng.IntN(5) + 1; i > 0; i-- {
				k := key()
				if rng.IntN(8) == 0 {
					e := fmt.Sprintf("k%03d", rng.IntN(300)+rng.IntN(20))
					b.DeleteRange([]byte(k), []byte(e))
					parts = append(parts, "~"+k+"-"+e)
				} else if rng.IntN(3) == 0 {
					b.Delete([]byte(k))
					parts = append(parts, k+"=")
				} else {
					v := fmt.Sprintf("%s.%d", val, i)
					b.Put([]byte(k), []byte(v))
					parts = append(parts, k+"="+v)
				}
			}
			line, do = "B "+strings.Join(parts, ","), func() error { return s.Apply(b) }
		}
		os.Stdout.WriteString(fmt.Sprintf("T %d %s\n", n, line))
		if err := do(); err != nil {
			fmt.Printf("E %d: %v\n", n, err)
			os.Exit(3)
		}
		os.Stdout.WriteString(fmt.Sprintf("A %d\n", n))
		switch {
		case n%97 == 96:
			os.Stdout.WriteString("F\n")
			_ = s.Flush()
		case n%251 == 250:
			os.Stdout.WriteString("C\n")
			_ = s.Compact()
		}
	}
}

// crashSetup begins a crash test. In the child process the test starts
// (dirEnv set) it runs child on that directory with the seed
// (crashSeedEnv) and returns ok false, and the test returns. In the test
// it returns the rounds to run (short under -short), a directory for the
// children's store and a random source on the stream given.
func crashSetup(t *testing.T, dirEnv string, child func(dir string, seed uint64), rounds, short int, stream uint64) (int, string, *rand.Rand, bool) {
	t.Helper()
	if dir := os.Getenv(dirEnv); dir != "" {
		seed, _ := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
		child(dir, seed)
		return 0, "", nil, false
	}
	if testing.Short() {
		rounds = short
	}
	return rounds, t.TempDir(), rand.New(rand.NewPCG(2026, stream)), true
}

// startCrashChild re-executes the test binary as a child running only the
// test named run, with env added, and returns it with its stdout.
func startCrashChild(t *testing.T, run string, env ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	return cmd, out
}

// childLines sends the lines a crash child writes to out (without their
// newline) on the channel it returns, which closes at the end of out; a
// failed read is an "E" line.
func childLines(out io.Reader) <-chan string {
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		r := bufio.NewReader(out)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				if err != io.EOF {
					lines <- "E read: " + err.Error()
				}
				return
			}
			lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	return lines
}

// applyLine applies a T line's write to m.
func applyLine(m model, line string) {
	f := strings.SplitN(line, " ", 4)
	switch f[2] {
	case "P":
		m[f[3][:4]] = f[3][5:]
	case "D":
		delete(m, f[3])
	case "R":
		start, end, _ := strings.Cut(f[3], " ")
		m.deleteRange([]byte(start), []byte(end))
	case "B":
		for _, kv := range strings.Split(f[3], ",") {
			if r, ok := strings.CutPrefix(kv, "~"); ok {
				start, end, _ := strings.Cut(r, "-")
				m.deleteRange([]byte(start), []byte(end))
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
	}
}

func TestCrash(t *testing.T) {
	rounds, dir, rng, ok := crashSetup(t, crashDirEnv, crashChild, 20, 4, 11)
	if !ok {
		return
	}
	m := model{}
	acked := 0
	for round := 0; round < rounds; round++ {
		cmd, out := startCrashChild(t, "TestCrash", crashDirEnv+"="+dir, fmt.Sprintf("%s=%d", crashSeedEnv, round+1))
		lines := childLines(out)
		// Kill after a random number of acknowledged writes (so the kill
		// lands at any point: mid-write, mid-flush, mid-compaction).
		killAt := 50 + rng.IntN(900)
		var pending string
		n := 0
		killed := false
		timeout := time.After(60 * time.Second)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				switch l[0] {
				case 'T':
					pending = l
				case 'A':
					applyLine(m, pending)
					pending = ""
					acked++
					n++
				case 'E':
					require.Failf(t, "child failed", "round %d: %s", round, l)
				case 'F', 'C':
					// Every third round dies inside the first flush or
					// compaction it reaches.
					if round%3 == 2 && !killed {
						time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
						_ = cmd.Process.Signal(syscall.SIGKILL)
						killed = true
					}
				}
				if n == killAt && !killed {
					// A little more delay sometimes, to land inside the
					// next write or a flush.
					if rng.IntN(2) == 0 {
						time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
					}
					_ = cmd.Process.Signal(syscall.SIGKILL)
					killed = true
				}
			case <-timeout:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				require.Failf(t, "child stuck", "round %d", round)
			}
		}
		_ = cmd.Wait()

		// Reopen: every acknowledged write is there; the pending one is
		// there entirely or not at all.
		s := mustOpen(t, crashOptions(dir))
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err, "round %d: scan after crash", round)
		if pending != "" && !assert.ObjectsAreEqual(m.rangeOf(nil, nil), got) {
			with := m.clone()
			applyLine(with, pending)
			if assert.ObjectsAreEqual(with.rangeOf(nil, nil), got) {
				m = with
			}
		}
		require.Equal(t, m.rangeOf(nil, nil), got, "round %d (%d writes acknowledged, pending %q)", round, n, pending)
		got, err = scanBack(s.NewIterator(IterOptions{}))
		require.NoError(t, err, "round %d: backward scan after crash", round)
		require.Equal(t, reversed(m.rangeOf(nil, nil)), got, "round %d: backward", round)
		prog := make([]byte, 60)
		for j := range prog {
			prog[j] = byte(rng.IntN(256))
		}
		it := s.NewIterator(IterOptions{})
		itertest.Walk(t, it, m.rangeOf(nil, nil), prog, func(b byte) []byte { return fmt.Appendf(nil, "k%03d", int(b)*300/256) },
			fmt.Sprintf("round %d: walk after crash", round))
		require.NoError(t, it.Close())
		for k := 0; k < 300; k++ {
			key := fmt.Sprintf("k%03d", k)
			v, err := s.Get([]byte(key))
			requireGet(t, v, err, m, key, "round %d", round)
		}
		require.NoError(t, s.Close(), "round %d: close", round)
	}
	t.Logf("%d rounds, %d acknowledged writes, %d live keys", rounds, acked, len(m))
}

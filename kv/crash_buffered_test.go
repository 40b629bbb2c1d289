package kv

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The buffered crash test is the concurrent crash test with
// Options.WALBuffered: writers write new keys, the child is killed at a
// random moment, and after the reopen the writes lost are a suffix of the
// acknowledged ones: every write acknowledged before a surviving write
// began survives too (no hole), and a write survives whole or not at all.

const crashBufDirEnv = "KV_CRASH_BUF_DIR"

// crashBufChild writes until killed: writer w's n-th write in round r
// puts key r<r>/w<w>/<n> (n: 6 digits) to a value that repeats it,
// announced by "T <w> <n>" and acknowledged by "A <w> <n>".
func crashBufChild(dir string, round uint64) {
	o := crashOptions(dir)
	o.WALBuffered = true
	crashWritersChild(o, round, func(w, n int, rng *rand.Rand) (k, v, note string) {
		k = crashBufKey(round, w, n)
		return k, crashBufValue(k, rng.IntN(80)), strconv.Itoa(n)
	})
}

func crashBufKey(round uint64, w, n int) string { return fmt.Sprintf("r%d/w%d/%06d", round, w, n) }

func crashBufValue(k string, pad int) string { return k + strings.Repeat("x", pad) }

func TestCrashBuffered(t *testing.T) {
	rounds, dir, rng, ok := crashSetup(t, crashBufDirEnv, crashBufChild, 8, 2, 32)
	if !ok {
		return
	}
	kept := map[string]bool{} // the keys of earlier rounds that survived
	lost := 0
	for round := range rounds {
		r := uint64(round + 1)
		cmd, out := startCrashChild(t, "TestCrashBuffered", crashBufDirEnv+"="+dir, fmt.Sprintf("%s=%d", crashSeedEnv, r))
		// began[k], acked[k]: the line at which write k began and
		// returned.
		began, acked := map[string]int{}, map[string]int{}
		killAt, i := 200+rng.IntN(3000), 0
		readCrashChild(t, cmd, out, round, func(l string) bool {
			i++
			f := strings.Split(l, " ")
			require.Len(t, f, 3, "round %d: %s", round, l)
			w, _ := strconv.Atoi(f[1])
			n, _ := strconv.Atoi(f[2])
			k := crashBufKey(r, w, n)
			switch f[0] {
			case "T":
				began[k] = i
			case "A":
				acked[k] = i
				return len(acked) == killAt
			default:
				require.Failf(t, "child wrote", "round %d: %s", round, l)
			}
			return false
		})

		s := mustOpen(t, crashOptions(dir))
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err, "round %d: scan after crash", round)
		survived, all := map[string]bool{}, map[string]bool{}
		prefix := fmt.Sprintf("r%d/", r)
		for _, kv := range got {
			k, v := kv[0], kv[1]
			all[k] = true
			require.True(t, strings.HasPrefix(v, k), "round %d: key %q value %q", round, k, v)
			if !strings.HasPrefix(k, prefix) {
				require.True(t, kept[k], "round %d: key %q of an earlier round came back", round, k)
				continue
			}
			_, ok := began[k]
			require.True(t, ok, "round %d: key %q never written", round, k)
			survived[k] = true
		}
		for k := range kept {
			require.True(t, all[k], "round %d: key %q of an earlier round lost", round, k)
		}
		// The latest write begun among the survivors: every write
		// acknowledged before it began must survive.
		last := -1
		for k := range survived {
			last = max(last, began[k])
		}
		for k, at := range acked {
			if at < last {
				require.True(t, survived[k], "round %d: %q acknowledged at line %d lost, a write begun at line %d survived", round, k, at, last)
			}
			if !survived[k] {
				lost++
			}
		}
		for k := range survived {
			kept[k] = true
		}
		require.NoError(t, s.Close(), "round %d: close", round)
	}
	assert.NotEmpty(t, kept)
	t.Logf("acknowledged writes lost over %d rounds: %d", rounds, lost)
}

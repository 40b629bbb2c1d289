package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/inspect"
	"github.com/kvenc/kvenc/kvtikv"
	"github.com/kvenc/kvenc/kvtikv/internal/mocktikv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tikv/client-go/v2/tikv"
)

func TestMain(m *testing.M) {
	mocktikv.Quiet()
	os.Exit(m.Run())
}

// mockStore returns a KVStore on client-go's in-process mock, with its
// regions split at splits.
func mockStore(t *testing.T, splits ...[]byte) *tikv.KVStore {
	t.Helper()
	store, err := mocktikv.New("", splits...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// mockOpener is the command's opener on store: --pd's addresses are not
// dialled, the engine is a read-only one on the mock.
func mockOpener(store *tikv.KVStore) pdOpener {
	return pdOpener{dial: func(context.Context, []string) (*kvtikv.Engine, error) {
		return kvtikv.ReadOnlyEngine(store)
	}}
}

func runCmd(o pdOpener, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb, o)
	return code, out.String(), errb.String()
}

// writeStore writes a store under prefix "kv" through kvtikv on the mock:
// three flushed segments (puts, updates, deletes, a range delete) and five
// puts left in the WAL. It returns the writer, still open, and what a read
// sees, key by key.
func writeStore(t *testing.T, store *tikv.KVStore) (*kv.Store, map[string]string) {
	t.Helper()
	o := kv.DefaultOptions("")
	o.Prefix = []byte("kv")
	o.BlockSize = 1024
	o.CompactionTrigger = 100 // keep the three segments
	o.Lease = 2 * time.Second
	s, err := kvtikv.Open(store, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	m := map[string]string{}
	b := s.NewBatch()
	for n := range 1500 {
		k, v := fmt.Sprintf("row%06d", n), fmt.Sprintf("value %d of row %d|some text that repeats", n%17, n)
		b.Put([]byte(k), []byte(v))
		m[k] = v
		if b.Len() == 100 {
			require.NoError(t, s.Apply(b))
			b.Reset()
		}
	}
	require.NoError(t, s.Apply(b))
	require.NoError(t, s.Flush())
	for n := 0; n < 1500; n += 7 {
		k := fmt.Sprintf("row%06d", n)
		if n%3 == 0 {
			require.NoError(t, s.Delete([]byte(k)))
			delete(m, k)
		} else {
			require.NoError(t, s.Put([]byte(k), []byte("updated")))
			m[k] = "updated"
		}
	}
	require.NoError(t, s.Flush())
	require.NoError(t, s.DeleteRange([]byte("row000100"), []byte("row000150")))
	for n := 100; n < 150; n++ {
		delete(m, fmt.Sprintf("row%06d", n))
	}
	require.NoError(t, s.Flush())
	for _, k := range []string{"apple", "banana", "cherry", "date", "elder"} {
		require.NoError(t, s.Put([]byte(k), []byte("fruit "+k)))
		m[k] = "fruit " + k
	}
	return s, m
}

// modelLines is m as kvenc dump prints it, in key order.
func modelLines(m map[string]string) []string {
	var lines []string
	for k, v := range m {
		lines = append(lines, fmt.Sprintf("%q = %q", k, v))
	}
	slices.Sort(lines)
	return lines
}

func TestCommandsOnTiKV(t *testing.T) {
	// Regions split inside the keys of segment 1's blocks.
	store := mockStore(t, []byte("kv\x00s\x00\x00\x00\x00\x00\x00\x00\x01row000500"), []byte("kv\x00s\x00\x00\x00\x00\x00\x00\x00\x01row001000"))
	s, m := writeStore(t, store)
	o := mockOpener(store)

	// stats: what the writer's own Stats count.
	code, out, stderr := runCmd(o, "stats", "--pd", "mock:2379", "--json")
	require.Equal(t, exitOK, code, stderr)
	var st struct {
		Dir         string `json:"dir"`
		Engine      string `json:"engine"`
		Prefix      string `json:"prefix"`
		Segments    int    `json:"segments"`
		Blocks      int    `json:"blocks"`
		Cells       int64  `json:"cells"`
		LiveBytes   int64  `json:"live_bytes"`
		DiskBytes   int64  `json:"disk_bytes"`
		WALInEngine struct {
			Puts int `json:"puts"`
		} `json:"wal_in_engine"`
		Problems []string `json:"problems"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	ks := s.Stats()
	assert.Equal(t, "pd mock:2379", st.Dir)
	assert.Equal(t, "TiKV", st.Engine)
	assert.Equal(t, "kv", st.Prefix)
	assert.Equal(t, 3, ks.Segments)
	assert.Equal(t, ks.Segments, st.Segments)
	assert.Equal(t, ks.Blocks, st.Blocks)
	assert.Equal(t, ks.Cells, st.Cells)
	assert.Equal(t, ks.BytesStored, st.LiveBytes)
	assert.Zero(t, st.DiskBytes)
	assert.Equal(t, 5, st.WALInEngine.Puts, "the five puts after the last flush")
	assert.Empty(t, st.Problems)

	code, out, stderr = runCmd(o, "stats", "--pd", "mock:2379")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `store      pd mock:2379 prefix "kv": key layout 2`)
	assert.Contains(t, out, fmt.Sprintf("segments   3: %d blocks, %d cells", ks.Blocks, ks.Cells))
	assert.Contains(t, out, "WAL in TiKV  5 records")

	// verify: clean.
	code, out, stderr = runCmd(o, "verify", "--pd", "mock:2379", "--prefix", "kv")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, fmt.Sprintf(`store pd mock:2379 prefix "kv", key layout 2: 3 segments, %d blocks, %d cells; 0 WAL files (0 records), 5 WAL records in TiKV`, ks.Blocks, ks.Cells))
	assert.True(t, strings.HasSuffix(out, "ok\n"), out)

	// dump: what the test wrote, forward and reverse.
	want := modelLines(m)
	code, out, stderr = runCmd(o, "dump", "--pd", "mock:2379")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, want, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
	code, out, stderr = runCmd(o, "dump", "--pd", "mock:2379", "--reverse", "--from", "row000090", "--to", "row000160")
	require.Equal(t, exitOK, code, stderr)
	var part []string
	for _, l := range want {
		if l >= `"row000090"` && l < `"row000160"` {
			part = append(part, l)
		}
	}
	slices.Reverse(part)
	require.Equal(t, part, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))

	// block: segment 1's first block, its first key the store's first row.
	code, out, stderr = runCmd(o, "block", "--pd", "mock:2379", "--segment", "1", "--block", "0")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "segment 1 block 0")
	assert.Contains(t, out, "verify: ok")
	assert.Contains(t, out, "row000000")

	// advise reads the store's live cells through a ReadOnly kv.Store.
	code, out, stderr = runCmd(o, "advise", "--pd", "mock:2379", "--quick", "--cells", "200", "--gets", "20", "--rounds", "1")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `kvenc store pd mock:2379 prefix "kv"`)
	assert.Contains(t, out, "200 cells")
}

// A block whose bytes were changed in TiKV: verify names its segment and
// block and exits with status 1.
func TestVerifyCorruptBlockOnTiKV(t *testing.T) {
	store := mockStore(t)
	writeStore(t, store)
	e, err := kvtikv.ReadOnlyEngine(store)
	require.NoError(t, err)
	v, err := inspect.OpenEngine(e, []byte("kv"))
	require.NoError(t, err)
	segs, err := v.Segments()
	require.NoError(t, err)
	require.Len(t, segs, 3)
	ref := segs[1].Blocks[2]
	b, err := v.Block(ref)
	require.NoError(t, err)
	require.NoError(t, v.Close())
	require.NoError(t, e.Close())
	b[len(b)/2] ^= 0x40
	txn, err := store.Begin()
	require.NoError(t, err)
	require.NoError(t, txn.Set(ref.Key, b))
	require.NoError(t, txn.Commit(context.Background()))

	code, out, stderr := runCmd(mockOpener(store), "verify", "--pd", "mock:2379")
	assert.Equal(t, exitFound, code, stderr)
	assert.Contains(t, out, fmt.Sprintf("PROBLEM segment %d block 2", segs[1].ID))
	assert.Contains(t, stderr, "kvenc-tikv verify: problems found")
}

// PD that does not answer: an error naming the address within --timeout.
func TestUnreachablePD(t *testing.T) {
	o := pdOpener{dial: kvtikv.DialReadOnlyEngine}
	start := time.Now()
	code, _, stderr := runCmd(o, "stats", "--pd", "127.0.0.1:1", "--timeout", "500ms")
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "kvenc-tikv stats: kvtikv: connect to PD 127.0.0.1:1")
	assert.Less(t, time.Since(start), 30*time.Second, "a hang, not the timeout")
}

func TestUsageOnTiKV(t *testing.T) {
	o := mockOpener(nil)
	code, _, stderr := runCmd(o, "verify")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "want one store directory or --pd HOST:PORT,...")
	code, _, stderr = runCmd(o, "verify", "some/dir", "--pd", "mock:2379")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "a store directory and --pd HOST:PORT,...: give one")
	code, _, stderr = runCmd(o, "stats", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "usage: kvenc-tikv stats (DIR | --pd HOST:PORT,...) [--prefix P]")
	assert.Contains(t, stderr, "-pd string")
	code, _, stderr = runCmd(o, "advise")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give one of --csv FILE, --badger DIR, --store DIR or --pd HOST:PORT,...")
}

// Exit statuses of kvenccli.Run.
const (
	exitOK    = 0
	exitFound = 1
	exitUsage = 2
)

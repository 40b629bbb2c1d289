package kvtikv

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kvtikv/internal/mocktikv"
	"github.com/stretchr/testify/require"
	"github.com/tikv/client-go/v2/tikv"
)

func TestMain(m *testing.M) {
	mocktikv.Quiet()
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// mockStore returns a KVStore on client-go's in-process mock, in dir (""
// in memory), with regions split at splitKeys.
func mockStore(t testing.TB, dir string, splitKeys ...[]byte) *tikv.KVStore {
	t.Helper()
	store, err := newMock(dir, splitKeys...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	return store
}

func newMock(dir string, splitKeys ...[]byte) (*tikv.KVStore, error) {
	return mocktikv.New(dir, splitKeys...)
}

// testOptions are small: many blocks, segments and flushes from few cells.
func testOptions(prefix string) kv.Options {
	o := kv.DefaultOptions("")
	o.Prefix = []byte(prefix)
	o.BlockSize = 512
	o.MemstoreSize = 64 << 10
	o.CacheSize = 8 << 10
	o.CompactionTrigger = 3
	o.Lease = 2 * time.Second
	return o
}

// model is what a Store should hold.
type model map[string]string

// requireModel requires s to hold exactly m: forward and reverse scans
// and a Get of every key.
func requireModel(t testing.TB, s *kv.Store, m model, msg ...any) {
	t.Helper()
	want := m.sorted()
	got := [][2]string{}
	it := s.NewIterator(kv.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, [2]string{string(it.Key()), string(it.Value())})
	}
	require.NoError(t, it.Close(), msg...)
	require.Equal(t, want, got, msg...)
	back := [][2]string{}
	it = s.NewIterator(kv.IterOptions{})
	for ok := it.Last(); ok; ok = it.Prev() {
		back = append([][2]string{{string(it.Key()), string(it.Value())}}, back...)
	}
	require.NoError(t, it.Close(), msg...)
	require.Equal(t, want, back, msg...)
	for k, v := range m {
		got, err := s.Get([]byte(k))
		require.NoError(t, err, msg...)
		require.Equal(t, v, string(got), msg...)
	}
}

func (m model) sorted() [][2]string {
	out := [][2]string{}
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// openWhenFree opens a writer on prefix, retrying while another holds
// the lease, up to limit.
func openWhenFree(t testing.TB, store *tikv.KVStore, o kv.Options, limit time.Duration) *kv.Store {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		s, err := Open(store, o)
		if err == nil {
			return s
		}
		require.ErrorIs(t, err, kv.ErrPrefixInUse)
		require.True(t, time.Now().Before(deadline), "prefix still held after %v: %v", limit, err)
		time.Sleep(100 * time.Millisecond)
	}
}

func key(i int) string      { return fmt.Sprintf("key%05d", i) }
func value(i, r int) string { return fmt.Sprintf("value %d round %d %s", i, r, pad[:i%40]) }

var pad = "lorem ipsum dolor sit amet consectetur adipiscing elit"

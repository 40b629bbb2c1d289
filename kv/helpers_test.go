package kv

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/stretchr/testify/require"
)

// smallBadger keeps test DBs small: a 8 MiB memtable and 16 MiB value log
// files instead of 64 MiB and 1 GiB.
func smallBadger(o badger.Options) badger.Options {
	return o.WithMemTableSize(8 << 20).WithValueLogFileSize(16 << 20).WithNumCompactors(2)
}

// testOptions are tiny, so that tests freeze, flush, cut blocks, miss the
// cache and compact in the background often.
func testOptions(dir string) Options {
	o := DefaultOptions(dir)
	o.BlockSize = 512
	o.MemstoreSize = 64 << 10
	o.CacheSize = 8 << 10
	o.CompactionTrigger = 3
	o.Badger = smallBadger
	return o
}

func mustOpen(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := Open(o)
	require.NoError(t, err, "Open")
	return s
}

// scan returns every key/value the iterator shows from First, and its Err;
// it closes the iterator.
func scan(it *Iterator) ([][2]string, error) { return pairs(it, it.First, it.Next) }

// scanBack returns every key/value the iterator shows from Last backward,
// and its Err; it closes the iterator.
func scanBack(it *Iterator) ([][2]string, error) { return pairs(it, it.Last, it.Prev) }

func pairs(it *Iterator, start, step func() bool) ([][2]string, error) {
	var out [][2]string
	for ok := start(); ok; ok = step() {
		out = append(out, [2]string{string(it.Key()), string(it.Value())})
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return out, err
}

// reversed returns a reversed copy of p.
func reversed(p [][2]string) [][2]string {
	out := slices.Clone(p)
	slices.Reverse(out)
	return out
}

// model is the reference: the live keys and values.
type model map[string]string

func (m model) clone() model {
	c := make(model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// deleteRange deletes the keys in [lo, hi).
func (m model) deleteRange(lo, hi []byte) {
	for k := range m {
		if k >= string(lo) && k < string(hi) {
			delete(m, k)
		}
	}
}

// rangeOf returns the model's pairs in [lo, hi) (nil bounds: unbounded).
func (m model) rangeOf(lo, hi []byte) [][2]string {
	var out [][2]string
	for k, v := range m {
		if lo != nil && k < string(lo) || hi != nil && k >= string(hi) {
			continue
		}
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// requireGet requires a Get's result, got and err, to match the model at
// Key: the model's value, or ErrNotFound where the model has none.
// msgAndArgs is a testify message; the key and got are added to it.
func requireGet(t testing.TB, got []byte, err error, m model, key string, msgAndArgs ...any) {
	t.Helper()
	format := "Get(%q) = %q"
	if len(msgAndArgs) > 0 {
		format = fmt.Sprint(msgAndArgs[0]) + ": " + format
		msgAndArgs = msgAndArgs[1:]
	}
	msg := append(append([]any{format}, msgAndArgs...), key, got)
	want, ok := m[key]
	if !ok {
		require.ErrorIs(t, err, ErrNotFound, msg...)
		return
	}
	require.NoError(t, err, msg...)
	require.Equal(t, want, string(got), msg...)
}

// putEach puts keys and values keyFmt and valFmt of 0 to n-1 one Put
// each, into s and m.
func putEach(t testing.TB, s *Store, m model, n int, keyFmt, valFmt string) {
	t.Helper()
	for i := range n {
		k, v := fmt.Sprintf(keyFmt, i), fmt.Sprintf(valFmt, i)
		require.NoError(t, s.Put([]byte(k), []byte(v)))
		m[k] = v
	}
}

// badgerDB returns the Badger DB under s.
func badgerDB(s *Store) *badger.DB {
	return s.eng.(interface{ DB() *badger.DB }).DB()
}

// viewFn is f as an engine.Viewer.
func viewFn(f func(v []byte)) engine.Viewer {
	return engine.ViewFunc(func(v []byte) error { f(v); return nil })
}

// requireModel requires s to hold exactly m: a full scan, and a Get of
// every key of m.
func requireModel(t testing.TB, s *Store, m model, msgAndArgs ...any) {
	t.Helper()
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err, msgAndArgs...)
	require.Equal(t, m.rangeOf(nil, nil), got, msgAndArgs...)
	for k := range m {
		v, err := s.Get([]byte(k))
		requireGet(t, v, err, m, k, msgAndArgs...)
	}
}

package kv

import (
	"fmt"
	"sync"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/stretchr/testify/require"
)

// fetchCounter is an engine that counts, per key, the reads that bring
// its value from the store: Gets, and iterator moves (First, Seek, Next)
// that land on the key. An engine such as TiKV fetches the values with
// the keys as its iterators move, so a key an iterator lands on is a
// value fetched whether or not Value is called.
type fetchCounter struct {
	engine.Engine
	mu      sync.Mutex
	fetches map[string]int
}

func (e *fetchCounter) count(key []byte) {
	e.mu.Lock()
	e.fetches[string(key)]++
	e.mu.Unlock()
}

// take returns the counts so far and starts new ones.
func (e *fetchCounter) take() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.fetches
	e.fetches = map[string]int{}
	return m
}

func (e *fetchCounter) Get(key []byte, v engine.Viewer) error {
	e.count(key)
	return e.Engine.Get(key, v)
}

func (e *fetchCounter) NewIter(o engine.IterOptions) (engine.Iter, error) {
	it, err := e.Engine.NewIter(o)
	if err != nil {
		return nil, err
	}
	return &fetchIter{Iter: it, e: e}, nil
}

type fetchIter struct {
	engine.Iter
	e *fetchCounter
}

func (t *fetchIter) land(ok bool) bool {
	if ok {
		t.e.count(t.Key())
	}
	return ok
}

func (t *fetchIter) First() bool                 { return t.land(t.Iter.First()) }
func (t *fetchIter) Seek(key []byte) bool        { return t.land(t.Iter.Seek(key)) }
func (t *fetchIter) Next() bool                  { return t.land(t.Iter.Next()) }
func (t *fetchIter) Valid() bool                 { return t.Iter.Valid() }
func (t *fetchIter) Value(v engine.Viewer) error { return t.Iter.Value(v) }

// TestScanFetchesEachBlockOnce: a scan that reads ahead fetches each block
// it visits from the engine once (the scan and its read-ahead goroutine
// do not both step over it), forward, backward and within bounds, with no
// cache.
func TestScanFetchesEachBlockOnce(t *testing.T) {
	defer setReadAhead(true)()
	db, err := badger.Open(smallBadger(badger.DefaultOptions("").WithInMemory(true)).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	eng := &fetchCounter{Engine: badgereng.Wrap(db), fetches: map[string]int{}}
	o := testOptions("")
	o.Prefix = []byte("fetch")
	o.CacheSize = -1 // every visit reads its block
	s, err := OpenEngine(eng, o)
	require.NoError(t, err)
	defer s.Close()
	m := model{}
	putEach(t, s, m, 4000, "key%06d", "value-%d-of-a-scan")
	require.NoError(t, s.Compact())
	segs := liveSegs(s)
	require.Len(t, segs, 1)
	g := segs[0]
	n := len(g.BlockKeys)
	require.Greater(t, n, 50, "blocks")
	all := m.rangeOf(nil, nil)

	// check: each block key fetched once in blocks [from, to], none
	// elsewhere, but for block to+1 when the index cannot rule out that it
	// holds keys below the upper bound (its first key is not in the index:
	// a scan may fetch it, once, to find where the bound falls).
	check := func(what string, from, to int, upper []byte) {
		t.Helper()
		got := eng.take()
		for i, k := range g.BlockKeys {
			want := 0
			if i >= from && i <= to {
				want = 1
			}
			if i == to+1 && upper != nil && g.InBounds(i, nil, upper) && got[string(k)] == 1 {
				want = 1
			}
			require.Equal(t, want, got[string(k)], "%s: fetches of block %d of %d", what, i, n)
		}
	}
	eng.take()
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	require.Equal(t, all, got)
	check("forward scan", 0, n-1, nil)

	got, err = scanBack(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	require.Equal(t, reversed(all), got)
	check("backward scan", 0, n-1, nil)

	lo, hi := []byte(all[len(all)/5][0]), []byte(all[len(all)*3/4][0])
	want := m.rangeOf(lo, hi)
	from, to := g.FindBlock(lo), g.FindBlock([]byte(want[len(want)-1][0]))
	got, err = scan(s.NewIterator(IterOptions{LowerBound: lo, UpperBound: hi}))
	require.NoError(t, err)
	require.Equal(t, want, got)
	check(fmt.Sprintf("scan [%s, %s)", lo, hi), from, to, hi)

	got, err = scanBack(s.NewIterator(IterOptions{LowerBound: lo, UpperBound: hi}))
	require.NoError(t, err)
	require.Equal(t, reversed(want), got)
	check(fmt.Sprintf("backward scan [%s, %s)", lo, hi), from, to, hi)
}

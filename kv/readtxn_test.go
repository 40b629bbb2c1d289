package kv

import (
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// noExpiry makes s keep its idle transactions whatever their age, so that
// the tests see them where they put them.
func noExpiry(s *Store) { s.txns.maxAge = time.Hour }

// idleTxns returns the transactions in p's slots.
func idleTxns(p *readTxns) []*readTxn {
	var out []*readTxn
	for i := range p.slot {
		if t := p.slot[i].Load(); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// requireDiscarded checks that Badger refuses reads in t.
func requireDiscarded(t *testing.T, txn *readTxn) {
	t.Helper()
	_, err := txn.txn.Get([]byte("any"))
	require.ErrorIs(t, err, badger.ErrDiscardedTxn)
}

// A Get after a flush or a compaction reads the new segment's blocks,
// which were committed after the transaction lent to the Gets before it.
func TestReadTxnsNewSegments(t *testing.T) {
	o := testOptions("")
	o.CompactionTrigger = -1
	s := mustOpen(t, o)
	defer s.Close()
	noExpiry(s)
	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	require.NoError(t, s.Flush())
	v, err := s.Get([]byte("a"))
	require.NoError(t, err)
	require.Equal(t, "1", string(v))
	before := idleTxns(s.txns)
	require.Len(t, before, 1, "the Get's transaction is kept")

	require.NoError(t, s.Put([]byte("b"), []byte("2")))
	require.NoError(t, s.Flush())
	v, err = s.Get([]byte("b"))
	require.NoError(t, err)
	require.Equal(t, "2", string(v))
	require.NotContains(t, idleTxns(s.txns), before[0], "a flush discards the idle transactions")
	requireDiscarded(t, before[0])

	require.NoError(t, s.Put([]byte("a"), []byte("3")))
	require.NoError(t, s.Flush())
	v, err = s.Get([]byte("b")) // lends a transaction of this epoch
	require.NoError(t, err)
	require.Equal(t, "2", string(v))
	require.NoError(t, s.Compact())
	for k, want := range map[string]string{"a": "3", "b": "2"} {
		v, err := s.Get([]byte(k))
		require.NoError(t, err, k)
		require.Equal(t, want, string(v), k)
	}
	it := s.NewIterator(IterOptions{})
	got, err := scan(it)
	require.NoError(t, err)
	require.Equal(t, [][2]string{{"a", "3"}, {"b", "2"}}, got)
}

// An idle transaction is discarded once it is maxAge old.
func TestReadTxnsExpire(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	defer s.Close()
	noExpiry(s)
	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	require.NoError(t, s.Flush())
	_, err := s.Get([]byte("a"))
	require.NoError(t, err)
	old := s.txns.get()
	old.born = time.Now().Add(-s.txns.maxAge)
	s.txns.put(old)
	require.Equal(t, []*readTxn{old}, idleTxns(s.txns))

	s.txns.expire()
	require.Empty(t, idleTxns(s.txns))
	requireDiscarded(t, old)

	young := s.txns.get()
	require.NotSame(t, old, young, "an old transaction is not lent")
	s.txns.put(young)
	s.txns.expire()
	require.Equal(t, []*readTxn{young}, idleTxns(s.txns), "a young transaction is kept")
}

// Close discards the idle transactions; the caller's DB stays open, and
// Badger's Discard of its transaction is not left to the garbage
// collector.
func TestReadTxnsClose(t *testing.T) {
	s := wrapped(t, memDB(t), "p")
	noExpiry(s)
	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	require.NoError(t, s.Flush())
	_, err := s.Get([]byte("a"))
	require.NoError(t, err)
	idle := idleTxns(s.txns)
	require.Len(t, idle, 1)

	require.NoError(t, s.Close())
	require.Empty(t, idleTxns(s.txns))
	requireDiscarded(t, idle[0])
	_, err = s.Get([]byte("a"))
	require.ErrorIs(t, err, ErrClosed)
}

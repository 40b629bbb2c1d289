package badgereng

import (
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/stretchr/testify/require"
)

// memEngine returns an engine on a new in-memory DB that keeps its idle
// transactions whatever their age, so that the tests see them where they
// put them.
func memEngine(t *testing.T) *Owned {
	t.Helper()
	e, err := Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	e.txns.maxAge = time.Hour
	return e
}

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

func set(t *testing.T, e engine.Engine, k, v string) {
	t.Helper()
	var b engine.Batch
	b.Set([]byte(k), []byte(v))
	require.NoError(t, e.Write(&b))
}

func get(e engine.Engine, k string) (string, error) {
	var got string
	err := e.Get([]byte(k), engine.ViewFunc(func(v []byte) error { got = string(v); return nil }))
	return got, err
}

// A Get sees every write committed before it began, though the Gets
// before that write were lent a transaction that began before it.
func TestReadTxnsSeeWrites(t *testing.T) {
	e := memEngine(t)
	set(t, e, "a", "1")
	v, err := get(e, "a")
	require.NoError(t, err)
	require.Equal(t, "1", v)
	before := idleTxns(e.txns)
	require.Len(t, before, 1, "the Get's transaction is kept")

	set(t, e, "b", "2")
	v, err = get(e, "b")
	require.NoError(t, err)
	require.Equal(t, "2", v)
	require.NotContains(t, idleTxns(e.txns), before[0], "a write discards the idle transactions")
	requireDiscarded(t, before[0])

	done := make(chan error, 1)
	var b engine.Batch
	b.Set([]byte("a"), []byte("3"))
	require.NoError(t, e.WriteAsync(&b, func(err error) { done <- err }))
	require.NoError(t, <-done)
	v, err = get(e, "a")
	require.NoError(t, err)
	require.Equal(t, "3", v, "after WriteAsync's commit")

	b.Reset()
	b.Delete([]byte("a"))
	require.NoError(t, e.Write(&b))
	_, err = get(e, "a")
	require.ErrorIs(t, err, engine.ErrNotFound)
}

// An idle transaction is discarded once it is maxAge old.
func TestReadTxnsExpire(t *testing.T) {
	e := memEngine(t)
	set(t, e, "a", "1")
	_, err := get(e, "a")
	require.NoError(t, err)
	old, err := e.txns.get()
	require.NoError(t, err)
	old.born = time.Now().Add(-e.txns.maxAge)
	e.txns.put(old)
	require.Equal(t, []*readTxn{old}, idleTxns(e.txns))

	e.txns.expire()
	require.Empty(t, idleTxns(e.txns))
	requireDiscarded(t, old)

	young, err := e.txns.get()
	require.NoError(t, err)
	require.NotSame(t, old, young, "an old transaction is not lent")
	e.txns.put(young)
	e.txns.expire()
	require.Equal(t, []*readTxn{young}, idleTxns(e.txns), "a young transaction is kept")
}

// Close discards the idle transactions; a wrapped DB stays open, and
// Badger's Discard of its transaction is not left to the garbage
// collector.
func TestReadTxnsClose(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	e := Wrap(db)
	e.txns.maxAge = time.Hour
	set(t, e, "a", "1")
	_, err = get(e, "a")
	require.NoError(t, err)
	idle := idleTxns(e.txns)
	require.Len(t, idle, 1)

	require.NoError(t, e.Close())
	require.Empty(t, idleTxns(e.txns))
	requireDiscarded(t, idle[0])
	require.False(t, db.IsClosed(), "Close of a wrapped DB")
}

// An unseen write (engine.Batch.SetUnseen), synchronous or not, keeps the
// idle transactions lent: a Get after it reuses the transaction of the
// Get before and so does not see its key, until a seen write makes the
// next Get take a new transaction, which sees both.
func TestReadTxnsUnseenWrites(t *testing.T) {
	e := memEngine(t)
	set(t, e, "a", "1")
	_, err := get(e, "a")
	require.NoError(t, err)
	before := idleTxns(e.txns)
	require.Len(t, before, 1)

	var b engine.Batch
	b.Set([]byte("block"), []byte("x"))
	b.SetUnseen()
	require.NoError(t, e.Write(&b))
	var c engine.Batch
	c.Set([]byte("wal"), []byte("y"))
	c.SetUnseen()
	done := make(chan error, 1)
	require.NoError(t, e.WriteAsync(&c, func(err error) { done <- err }))
	require.NoError(t, <-done)
	require.Equal(t, before, idleTxns(e.txns), "unseen writes keep the idle transaction")
	_, err = get(e, "block")
	require.ErrorIs(t, err, engine.ErrNotFound, "the lent transaction began before the block")

	set(t, e, "meta", "m")
	for _, k := range []string{"block", "wal", "meta"} {
		_, err = get(e, k)
		require.NoError(t, err, k)
	}
	require.NotContains(t, idleTxns(e.txns), before[0])
	requireDiscarded(t, before[0])
}

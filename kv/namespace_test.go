package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/wal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func memDB(t testing.TB) *badger.DB {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func wrapped(t testing.TB, db *badger.DB, prefix string) *Store {
	t.Helper()
	o := testOptions("")
	o.Prefix = []byte(prefix)
	s, err := Wrap(db, o)
	require.NoError(t, err, "Wrap %q", prefix)
	return s
}

// Stores whose prefixes extend each other ("user", "users") live side by
// side in one DB, in every order of opening, and neither takes the other's
// keys nor an app key under its prefix.
func TestOverlappingPrefixes(t *testing.T) {
	for _, order := range [][2]string{{"users", "user"}, {"user", "users"}, {"idx/", "idx/s"}} {
		t.Run(order[0]+","+order[1], func(t *testing.T) {
			db := memDB(t)
			app := map[string]string{"idx/s-my-own-key": "mine", "users-app": "a", "user": "b", "idx/": "c"}
			setKeys(t, db, app)
			a := wrapped(t, db, order[0])
			require.NoError(t, a.Put([]byte("alice"), []byte("1")))
			require.NoError(t, a.Flush())
			require.NoError(t, a.Close())
			b := wrapped(t, db, order[1])
			require.NoError(t, b.Put([]byte("bob"), []byte("2")))
			require.NoError(t, b.Flush())
			require.NoError(t, b.Close())
			b = wrapped(t, db, order[1])
			a = wrapped(t, db, order[0])
			v, err := a.Get([]byte("alice"))
			require.NoError(t, err)
			assert.Equal(t, "1", string(v))
			v, err = b.Get([]byte("bob"))
			require.NoError(t, err)
			assert.Equal(t, "2", string(v))
			_, err = a.Get([]byte("bob"))
			assert.ErrorIs(t, err, ErrNotFound)
			require.NoError(t, a.Compact())
			require.NoError(t, b.Compact())
			require.NoError(t, a.Close())
			require.NoError(t, b.Close())
			assert.Equal(t, app, withoutStores(dump(t, db), order[0], order[1]))
		})
	}
}

// A prefix whose namespace overlaps a registered one (it extends it by the
// Separator byte, or the other way round) is refused, naming both.
func TestRegistryRefusesOverlap(t *testing.T) {
	db := memDB(t)
	s := wrapped(t, db, "u")
	require.NoError(t, s.Put([]byte("k"), []byte("v")))
	require.NoError(t, s.Close())
	o := testOptions("")
	for _, p := range []string{"u\x00", "u\x00w", "u\x00s123"} {
		o.Prefix = []byte(p)
		_, err := Wrap(db, o)
		require.ErrorIs(t, err, ErrPrefixInUse, "%q", p)
		assert.Contains(t, err.Error(), fmt.Sprintf("Prefix %q", p))
		assert.Contains(t, err.Error(), `Prefix "u" registered`)
	}
	// And the other way round: "v\x00x" first, then "v".
	s = wrapped(t, db, "v\x00x")
	require.NoError(t, s.Close())
	o.Prefix = []byte("v")
	_, err := Wrap(db, o)
	require.ErrorIs(t, err, ErrPrefixInUse)
	assert.Contains(t, err.Error(), `Prefix "v\x00x" registered`)
	// A prefix inside the registry's own range.
	o.Prefix = append(append([]byte(nil), layout.RegistryPrefix...), 'x')
	_, err = Wrap(db, o)
	require.ErrorIs(t, err, ErrInvalidOptions)
	s = wrapped(t, db, "u")
	v, err := s.Get([]byte("k"))
	require.NoError(t, err)
	assert.Equal(t, "v", string(v))
	require.NoError(t, s.Close())
}

// A second Store on a prefix already open in this process is refused;
// once the first is closed the prefix opens again, its data intact.
func TestSecondWrapOfOpenPrefix(t *testing.T) {
	db := memDB(t)
	s := wrapped(t, db, "dup/")
	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	o := testOptions("")
	o.Prefix = []byte("dup/")
	_, err := Wrap(db, o)
	require.ErrorIs(t, err, ErrPrefixInUse)
	assert.Contains(t, err.Error(), `"dup/" is already open`)
	require.NoError(t, s.Put([]byte("b"), []byte("2")))
	require.NoError(t, s.Flush())
	require.NoError(t, s.Close())
	s = wrapped(t, db, "dup/")
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"a", "1"}, {"b", "2"}}, got)
	require.NoError(t, s.Close())
	// The same prefix in another DB is another Store.
	s = wrapped(t, memDB(t), "dup/")
	require.NoError(t, s.Close())
	// Open's own DB takes part too: two Opens of one directory fail in
	// Badger (its directory lock), and a failed Open releases the prefix.
	dir := t.TempDir()
	s = mustOpen(t, testOptions(dir))
	_, err = Open(testOptions(dir))
	require.Error(t, err)
	require.NoError(t, s.Close())
	s = mustOpen(t, testOptions(dir))
	require.NoError(t, s.Close())
}

// A new prefix whose namespace already holds keys is refused (kv does not
// take keys it did not write), and the keys stay.
func TestWrapRefusesUnregisteredNamespace(t *testing.T) {
	db := memDB(t)
	app := map[string]string{"fresh\x00x": "app", "fresh\x00w": "app2"}
	setKeys(t, db, app)
	o := testOptions("")
	o.Prefix = []byte("fresh")
	_, err := Wrap(db, o)
	require.ErrorIs(t, err, ErrPrefixInUse)
	assert.Contains(t, err.Error(), `no store registered there`)
	assert.Equal(t, app, dump(t, db))
}

// layout1Keys writes, with raw Badger, what a Store of key layout 1 (keys
// P+tag, no separator, no registry) left under prefix: a flushed segment
// of one block and a WAL record.
func layout1Keys(t *testing.T, db *badger.DB, prefix string, withMeta bool) map[string]string {
	t.Helper()
	p := []byte(prefix)
	enc := blockenc.NewEncoder(DefaultBlockOptions())
	require.NoError(t, enc.Add(blockenc.Cell{Key: []byte("alice"), Value: []byte("1"), Seq: 1, Kind: blockenc.KindPut}))
	blk, err := enc.Finish()
	require.NoError(t, err)
	m := segment.Meta{ID: 1, WALSeq: 1, MinSeq: 1, MaxSeq: 1, Blocks: 1, Cells: 1, Keys: 1, Bytes: uint64(len(blk)),
		FirstKey: []byte("alice"), LastKey: []byte("alice")}
	keys := map[string]string{}
	block := binary.BigEndian.AppendUint64(append(append([]byte(nil), p...), 's'), 1)
	keys[string(append(block, "alice"...))] = string(blk)
	if withMeta {
		keys[string(binary.BigEndian.AppendUint64(append(append([]byte(nil), p...), 'm'), 1))] = string(m.Append(nil))
	}
	walKey := binary.BigEndian.AppendUint64(append(append([]byte(nil), p...), 'w'), 2)
	walKey = binary.BigEndian.AppendUint16(walKey, 0)
	keys[string(walKey)] = string(wal.Append(nil, 2, []wal.Op{{Key: []byte("bob"), Value: []byte("2"), Kind: blockenc.KindPut}}))
	setKeys(t, db, keys)
	return keys
}

// A Store of key layout 1 is refused with a message that says what to do,
// and none of its keys is touched; Open refuses it the same way.
func TestLayout1Refused(t *testing.T) {
	for _, withMeta := range []bool{true, false} {
		db := memDB(t)
		old := layout1Keys(t, db, "old/", withMeta)
		o := testOptions("")
		o.Prefix = []byte("old/")
		_, err := Wrap(db, o)
		require.ErrorIs(t, err, ErrFormat)
		assert.Contains(t, err.Error(), "key layout 1")
		assert.Contains(t, err.Error(), "write them into a Store of this version")
		assert.Equal(t, old, dump(t, db))
		// Another prefix next to it opens.
		s := wrapped(t, db, "old")
		require.NoError(t, s.Close())
	}
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	layout1Keys(t, db, "kv", true)
	require.NoError(t, db.Close())
	_, err = Open(testOptions(dir))
	require.ErrorIs(t, err, ErrFormat)
}

// When the caller closes its DB before the Store, every method returns an
// error (wrapping Badger's ErrDBClosed, or ErrClosed) instead of hanging.
func TestDBClosedFirst(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	s := wrapped(t, db, "app/")
	for i := 0; i < 500; i++ {
		require.NoError(t, s.Put([]byte(fmt.Sprintf("k%03d", i)), []byte("v")))
	}
	require.NoError(t, s.Flush())
	require.NoError(t, s.Put([]byte("late"), []byte("in the memstore")))
	snap := s.Snapshot()
	it := s.NewIterator(IterOptions{})
	require.NoError(t, db.Close())

	done := make(chan struct{})
	go func() {
		defer close(done)
		closedDB := func(err error) {
			assert.ErrorIs(t, err, badger.ErrDBClosed)
		}
		closedDB(s.Put([]byte("x"), []byte("y")))
		closedDB(s.Delete([]byte("x")))
		b := s.NewBatch()
		b.Put([]byte("x"), nil)
		closedDB(s.Apply(b))
		_, err := s.Get([]byte("k001"))
		closedDB(err)
		_, err = s.Get([]byte("late"))
		closedDB(err)
		_, err = snap.Get([]byte("k002"))
		closedDB(err)
		for ok := it.First(); ok; ok = it.Next() {
		}
		closedDB(it.Err())
		it2 := s.NewIterator(IterOptions{})
		assert.False(t, it2.First())
		closedDB(it2.Err())
		assert.NoError(t, it2.Close())
		closedDB(it.Close())
		closedDB(s.Flush())
		closedDB(s.Compact())
		assert.NoError(t, snap.Close())
		closedDB(s.Close())
		assert.ErrorIs(t, s.Close(), ErrClosed)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang detector, not a speed goal
		require.Fail(t, "a Store method hung on a closed DB")
	}
}

func TestWrapNil(t *testing.T) {
	_, err := Wrap(nil, DefaultOptions(""))
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.Contains(t, err.Error(), "nil *badger.DB")
}

// An Iterator used after its Close reports ErrClosed naming it, and Key
// and Value are nil whenever it is not Valid.
func TestIteratorAfterClose(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	defer s.Close()
	for i := 0; i < 300; i++ {
		require.NoError(t, s.Put([]byte(fmt.Sprintf("k%03d", i)), []byte("v")))
	}
	require.NoError(t, s.Flush())
	require.NoError(t, s.Put([]byte("k999"), []byte("last")))
	it := s.NewIterator(IterOptions{})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	assert.Equal(t, 301, n)
	assert.False(t, it.Valid())
	assert.Nil(t, it.Key())
	assert.Nil(t, it.Value())
	require.NoError(t, it.Err())
	require.True(t, it.SeekGE([]byte("k100")))
	require.NoError(t, it.Close())
	assert.False(t, it.Valid())
	assert.Nil(t, it.Key())
	assert.Nil(t, it.Value())
	assert.False(t, it.First())
	assert.False(t, it.SeekGE([]byte("k")))
	assert.False(t, it.Next())
	require.ErrorIs(t, it.Err(), ErrClosed)
	assert.Contains(t, it.Err().Error(), "iterator")
	require.NoError(t, it.Close())

	sn := s.Snapshot()
	require.NoError(t, sn.Close())
	_, err := sn.Get([]byte("k001"))
	require.ErrorIs(t, err, ErrClosed)
	assert.Contains(t, err.Error(), "snapshot")
	require.ErrorIs(t, sn.NewIterator(IterOptions{}).Err(), ErrClosed)
}

// Errors say which value is wrong, the limit, and which object is closed.
func TestErrorMessages(t *testing.T) {
	o := testOptions("")
	o.Block.Encoding = 42
	_, err := Open(o)
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.Contains(t, err.Error(), "Block.Encoding 42 is not one of 0..5")
	o = testOptions("")
	o.BlockSize = 1 << 20
	_, err = Open(o)
	assert.Contains(t, err.Error(), "BlockSize 1048576 is not in 1..262144")
	o = testOptions("")
	o.MemstoreSize = 1000
	_, err = Open(o)
	assert.Contains(t, err.Error(), "MemstoreSize 1000 is below the minimum")

	o = testOptions("")
	o.Prefix = []byte("errs")
	s := mustOpen(t, o)
	err = s.Put(make([]byte, MaxKeySize+1), nil)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), fmt.Sprintf("key of %d bytes exceeds MaxKeySize %d", MaxKeySize+1, MaxKeySize))
	err = s.Put([]byte("k"), make([]byte, MaxValueSize+1))
	assert.Contains(t, err.Error(), fmt.Sprintf("value of %d bytes exceeds MaxValueSize %d", MaxValueSize+1, MaxValueSize))
	b := s.NewBatch()
	for i := 0; i < 2000; i++ {
		b.Put([]byte(fmt.Sprintf("k%05d", i)), make([]byte, 100))
	}
	err = s.Apply(b)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "split the batch")
	require.NoError(t, s.Close())

	// A batch the memstore takes but one Badger transaction does not.
	o = testOptions("")
	o.MemstoreSize = 32 << 20
	big := mustOpen(t, o)
	b = big.NewBatch()
	for i := 0; i < 2000; i++ {
		b.Put([]byte(fmt.Sprintf("k%05d", i)), make([]byte, 1000))
	}
	err = big.Apply(b)
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorIs(t, err, badger.ErrTxnTooBig)
	assert.Regexp(t, `WAL record of \d+ bytes \(2000 ops\) exceeds what one transaction of the engine holds; split the batch: .*Badger's transaction limit of \d+ bytes`, err.Error())
	require.NoError(t, big.Close())

	err = s.Close()
	require.ErrorIs(t, err, ErrClosed)
	assert.Contains(t, err.Error(), `store "errs"`)
	_, err = s.Get([]byte("k"))
	assert.Contains(t, err.Error(), `store "errs"`)
}

// The caller's DB closed while writers, readers and the background flush
// of a Store run: every call returns, with nil before the close and an
// error wrapping ErrDBClosed or ErrClosed (or Badger's refusal of writes
// while it closes) after it, and Close returns.
func TestDBClosedUnderLoad(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	o := testOptions("")
	o.Prefix = []byte("busy/")
	s, err := Wrap(db, o)
	require.NoError(t, err)
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			var last error
			for i := 0; ; i++ {
				select {
				case <-stop:
					errs <- last
					return
				default:
				}
				k := []byte(fmt.Sprintf("g%d-%05d", g, i%3000))
				if g == 3 {
					_, last = s.Get(k)
				} else {
					last = s.Put(k, []byte("value"))
				}
			}
		}(g)
	}
	time.Sleep(300 * time.Millisecond) // let the writers fill memstores
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, db.Close())
		time.Sleep(50 * time.Millisecond)
		close(stop)
		for g := 0; g < 4; g++ {
			if err := <-errs; err != nil && !errors.Is(err, ErrNotFound) {
				assert.True(t, errors.Is(err, badger.ErrDBClosed) || errors.Is(err, badger.ErrBlockedWrites) || errors.Is(err, ErrClosed),
					"a writer or reader after the DB closed: %v; want badger.ErrDBClosed, badger.ErrBlockedWrites or ErrClosed", err)
			}
		}
		if err := s.Close(); err != nil {
			assert.ErrorIs(t, err, badger.ErrDBClosed)
		}
		assert.ErrorIs(t, s.Put([]byte("k"), nil), ErrClosed)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang detector, not a speed goal
		require.Fail(t, "a Store method hung on a DB closed under load")
	}
}

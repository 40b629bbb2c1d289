package kv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"

	"github.com/kvenc/kvenc/blockenc"
)

func TestErrors(t *testing.T) {
	if !errors.Is(ErrCorrupt, blockenc.ErrCorrupt) || !errors.Is(fmt.Errorf("x: %w", blockenc.ErrCorrupt), ErrCorrupt) {
		t.Fatal("kv.ErrCorrupt and blockenc.ErrCorrupt do not match each other")
	}
	s := mustOpen(t, testOptions(""))
	if _, err := s.Get([]byte("nope")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v", err)
	}
	big := make([]byte, MaxKeySize+1)
	if err := s.Put(big, nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("long key: %v", err)
	}
	if err := s.Put([]byte("k"), make([]byte, MaxValueSize+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("long value: %v", err)
	}
	b := s.NewBatch()
	for i := 0; i < 10; i++ {
		b.Put([]byte(fmt.Sprint(i)), make([]byte, 10<<10)) // 100 KiB > 64 KiB memstore
	}
	if err := s.Apply(b); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("batch larger than the memstore: %v", err)
	}
	if _, err := s.Get([]byte("0")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused batch left a trace: %v", err)
	}
	// The largest value round-trips through a flush (one block per cell).
	v := bytes.Repeat([]byte{7}, 60<<10)
	if err := s.Put([]byte("big"), v); err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]byte(""), []byte("empty key")); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get([]byte("big")); err != nil || !bytes.Equal(got, v) {
		t.Fatalf("big value: %d bytes, %v", len(got), err)
	}
	if got, err := s.Get([]byte("")); err != nil || string(got) != "empty key" {
		t.Fatalf("empty key: %q, %v", got, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Put":     s.Put([]byte("k"), nil),
		"Delete":  s.Delete([]byte("k")),
		"Apply":   s.Apply(s.NewBatch()),
		"Flush":   s.Flush(),
		"Compact": s.Compact(),
		"Close":   s.Close(),
		"Get":     func() error { _, err := s.Get([]byte("k")); return err }(),
		"Iterator": func() error {
			it := s.NewIterator(IterOptions{})
			it.First()
			return it.Err()
		}(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{BlockSize: -1},
		{BlockSize: maxBlockSize + 1},
		{MemstoreSize: 1000},
		{Block: blockenc.Options{Encoding: 99}},
		{Block: blockenc.Options{Compression: 99}},
		{CompactionLevel: blockenc.MaxCompressionLevel + 1},
		{Block: blockenc.Options{Encoding: blockenc.Columnar, CompressionLevel: -1}},
	} {
		_, err := Open(o)
		assert.ErrorIs(t, err, ErrInvalidOptions, "Open(%+v)", o)
	}
	d := DefaultOptions("x")
	want := Options{Dir: "x", Prefix: []byte("kv"), Block: DefaultBlockOptions(), BlockSize: 16 << 10, MemstoreSize: 32 << 20,
		DictSize: 64<<10 - 1, CacheSize: 64 << 20, CompactionTrigger: 4, CompactionLevel: 9, ValueThreshold: 1 << 10, ValueLogFileSize: 16 << 20}
	assert.Equal(t, want, d, "DefaultOptions")
	// Every encoding and compression works end to end.
	var variants []blockenc.Options
	for _, e := range blockenc.Encodings() {
		for _, c := range blockenc.Compressions() {
			variants = append(variants, blockenc.Options{Encoding: e, Compression: c, DedupeValues: c != 0, IntValues: e%2 == 0})
		}
	}
	for _, bo := range variants {
		e := bo
		o := testOptions("")
		o.Block = bo
		s := mustOpen(t, o)
		m := model{}
		for i := 0; i < 500; i++ {
			k := fmt.Sprintf("k%04d", i*7%300)
			m[k] = fmt.Sprint(i)
			if err := s.Put([]byte(k), []byte(m[k])); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Compact(); err != nil {
			t.Fatal(err)
		}
		got, err := scan(s.NewIterator(IterOptions{}))
		if err == nil {
			err = diffPairs(got, m.rangeOf(nil, nil))
		}
		if err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		s.Close()
	}
}

// Segments piling up are compacted in the background without Compact, and
// the cache stays within CacheSize.
func TestBackgroundCompaction(t *testing.T) {
	o := testOptions("")
	s := mustOpen(t, o)
	defer s.Close()
	for f := 0; f < 12; f++ {
		for i := 0; i < 50; i++ {
			if err := s.Put([]byte(fmt.Sprintf("k%03d", (f*50+i)%200)), []byte(fmt.Sprint(f))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i += 7 {
			_, _ = s.Get([]byte(fmt.Sprintf("k%03d", i)))
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := s.Stats()
		if st.CacheBytes > o.CacheSize {
			t.Fatalf("cache holds %d bytes, CacheSize %d", st.CacheBytes, o.CacheSize)
		}
		if st.Compactions > 0 && st.Segments < o.CompactionTrigger {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no background compaction: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An Iterator keeps reading its own view while flushes and compactions
// replace the memstores and segments under it; the compacted-away blocks go
// once it closes.
func TestIteratorOutlivesCompaction(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	defer s.Close()
	m := model{}
	for i := 0; i < 400; i++ {
		k := fmt.Sprintf("k%04d", i)
		m[k] = "old"
		if err := s.Put([]byte(k), []byte("old")); err != nil {
			t.Fatal(err)
		}
		if i == 200 {
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := m.rangeOf(nil, nil)
	it := s.NewIterator(IterOptions{})
	var got [][2]string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, [2]string{string(it.Key()), string(it.Value())})
		if len(got) == 100 {
			break
		}
	}
	for i := 0; i < 400; i += 2 {
		if err := s.Delete([]byte(fmt.Sprintf("k%04d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	for ok := it.Next(); ok; ok = it.Next() {
		got = append(got, [2]string{string(it.Key()), string(it.Value())})
	}
	s.mu.RLock()
	held := len(s.obsolete)
	s.mu.RUnlock()
	if held == 0 {
		t.Fatal("the iterator's segments were deleted under it")
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := diffPairs(got, want); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.RLock()
		held = len(s.obsolete)
		s.mu.RUnlock()
		if held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d compacted segments kept after the iterator closed", held)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(allPairs(t, s)); n != 200 {
		t.Fatalf("%d live keys, want 200", n)
	}
}

// allPairs scans the whole store.
func allPairs(t *testing.T, s *Store) [][2]string {
	t.Helper()
	got, err := scan(s.NewIterator(IterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A batch acknowledged under a large MemstoreSize replays after a reopen
// with a small one.
func TestReplayLargerThanMemstore(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.MemstoreSize = 1 << 20
	s := mustOpen(t, o)
	b := s.NewBatch()
	for i := 0; i < 8; i++ {
		b.Put([]byte(fmt.Sprint(i)), bytes.Repeat([]byte{byte(i)}, 20<<10))
	}
	if err := s.Apply(b); err != nil {
		t.Fatal(err)
	}
	// Crash: stop without Close, so the batch is only in the WAL.
	s.closed.Store(true)
	close(s.quit)
	<-s.bgDone
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	o.MemstoreSize = 64 << 10 // the batch needs ~160 KiB
	s = mustOpen(t, o)
	defer s.Close()
	if st := s.Stats(); st.Memstores != 1 || st.MemCells != 8 {
		t.Fatalf("replayed into %d memstores, %d cells", st.Memstores, st.MemCells)
	}
	for i := 0; i < 8; i++ {
		v, err := s.Get([]byte(fmt.Sprint(i)))
		if err != nil || len(v) != 20<<10 || v[0] != byte(i) {
			t.Fatalf("key %d after replay: %d bytes, %v", i, len(v), err)
		}
	}
}

// A block of 1 MiB or more (one key's versions pinned by a snapshot) is
// refused with ErrTooLarge by an in-memory Badger instead of reaching it.
func TestInMemoryBlockLimit(t *testing.T) {
	o := testOptions("")
	o.MemstoreSize = 8 << 20
	o.Block = blockenc.DefaultOptions() // uncompressed: the versions add up
	s := mustOpen(t, o)
	var snaps []*Snapshot
	v := bytes.Repeat([]byte{1}, MaxValueSize)
	for i := 0; i < 5; i++ { // five pinned 256 KiB versions of one key
		v[0] = byte(i)
		if err := s.Put([]byte("k"), v); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s.Snapshot())
	}
	if err := s.Flush(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Flush of a 1.25 MiB block into in-memory Badger: %v, want ErrTooLarge", err)
	}
	for _, sn := range snaps {
		sn.Close()
	}
	if got, err := s.Get([]byte("k")); err != nil || got[0] != 4 {
		t.Fatalf("Get after the refused flush: %v", err)
	}
	if err := s.Flush(); err != nil { // with the snapshots gone one version remains
		t.Fatal(err)
	}
	s.kickBackground()
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().BackgroundErr != nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after the store recovered: %v", err)
	}
}

// TestCompactionLevel: compaction rewrites blocks at CompactionLevel, so
// on text a compacted segment is smaller than the flushed one it replaces
// at the default level 6, and the same size at Block's level (-1); the
// cells read back either way.
func TestCompactionLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	words := []string{"furiously", "quickly", "carefully", "final", "pending", "deposits", "requests", "ironic", "packages", "slyly"}
	sizes := map[int]int64{}
	for _, level := range []int{-1, 6} {
		o := DefaultOptions("")
		o.CompactionLevel, o.CompactionTrigger = level, -1
		o.DictSize = -1 // a compaction samples its own dictionary: other bytes
		s, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for i := range 3000 {
			var v []byte
			for range 3 + rng.IntN(6) {
				v = append(append(v, words[rng.IntN(len(words))]...), ' ')
			}
			k := fmt.Sprintf("order/%08d", i)
			want[k] = string(v)
			if err := s.Put([]byte(k), v); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		flushed := s.Stats().BytesStored
		if err := s.Compact(); err != nil {
			t.Fatal(err)
		}
		sizes[level] = s.Stats().BytesStored
		for k, v := range want {
			if got, err := s.Get([]byte(k)); err != nil || string(got) != v {
				t.Fatalf("level %d: Get %s = %q, %v", level, k, got, err)
			}
		}
		if level == -1 && sizes[level] != flushed {
			t.Errorf("level -1: compacted %d bytes, flushed %d: want the same", sizes[level], flushed)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if sizes[6] >= sizes[-1]*95/100 {
		t.Errorf("compacted bytes at level 6: %d, at Block's level: %d; want at least 5%% smaller", sizes[6], sizes[-1])
	}
}

// TestOpenEmptyMemtable: an empty memtable file, as a kill between Badger
// creating and sizing it leaves, does not stop Open, and the data written
// before is there. Badger alone refuses such a directory once (its failed
// Open sizes the file, so a second Open works).
func TestOpenEmptyMemtable(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, DefaultOptions(dir))
	if err := s.Put([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "00099.mem")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, DefaultOptions(dir))
	if v, err := s.Get([]byte("k")); err != nil || string(v) != "v" {
		t.Fatalf("Get after reopen: %q, %v", v, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Badger v4.9.6 itself (when an upgrade fixes this, removeEmptyMemtables
	// can go).
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil)); err == nil {
		_ = db.Close()
		t.Fatal("Badger opened a directory with an empty memtable file")
	}
}

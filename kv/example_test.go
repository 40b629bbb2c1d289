package kv_test

import (
	"encoding/binary"
	"fmt"
	"log"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv"
)

// A Store embedded in an application's own Badger DB: it lives under its
// prefix as encoded blocks, next to the application's other keys, which it
// never touches.
func ExampleWrap() {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	// The application's own key.
	if err := db.Update(func(txn *badger.Txn) error {
		return txn.Set([]byte("app/config"), []byte("v1"))
	}); err != nil {
		log.Fatal(err)
	}

	opts := kv.DefaultOptions("")
	opts.Prefix = []byte("cells/")
	s, err := kv.Wrap(db, opts)
	if err != nil {
		log.Fatal(err)
	}
	b := s.NewBatch()
	b.Put([]byte("cpu|host1|0001"), []byte("0.25"))
	b.Put([]byte("cpu|host1|0002"), []byte("0.50"))
	b.Put([]byte("mem|host1|0001"), []byte("512"))
	if err := s.Apply(b); err != nil {
		log.Fatal(err)
	}
	if err := s.Flush(); err != nil { // encode the cells into a block
		log.Fatal(err)
	}
	v, err := s.Get([]byte("cpu|host1|0002"))
	fmt.Printf("get: %s %v\n", v, err)

	it := s.NewIterator(kv.IterOptions{LowerBound: []byte("cpu|"), UpperBound: []byte("cpu}")})
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Printf("scan: %s = %s\n", it.Key(), it.Value())
	}
	if err := it.Close(); err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil { // does not close db
		log.Fatal(err)
	}

	_ = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("app/config"))
		if err != nil {
			return err
		}
		val, _ := item.ValueCopy(nil)
		fmt.Printf("app/config: %s\n", val)
		return nil
	})
	// Output:
	// get: 0.50 <nil>
	// scan: cpu|host1|0001 = 0.25
	// scan: cpu|host1|0002 = 0.50
	// app/config: v1
}

// A Store in its own (here in-memory) Badger DB, read through a snapshot
// while it changes.
func ExampleStore_Snapshot() {
	s, err := kv.Open(kv.DefaultOptions("")) // "" : in memory
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	_ = s.Put([]byte("temp|2026-11-30T10:00"), []byte("7.5"))
	snap := s.Snapshot()
	defer snap.Close()
	_ = s.Put([]byte("temp|2026-11-30T10:00"), []byte("7.9")) // a correction
	_ = s.Delete([]byte("temp|2026-11-30T10:00"))
	_ = s.Flush()

	old, _ := snap.Get([]byte("temp|2026-11-30T10:00"))
	_, err = s.Get([]byte("temp|2026-11-30T10:00"))
	fmt.Printf("snapshot: %s, now: %v\n", old, err)
	// Output:
	// snapshot: 7.5, now: kv: not found
}

// A prefix scan: the Iterator sees only the keys that start with the
// prefix, here one series, wherever its cells live (memstore or blocks).
func ExampleIterOptions_prefix() {
	s, err := kv.Open(kv.DefaultOptions("")) // "" : in memory
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	b.Put([]byte("cpu|host1|0001"), []byte("0.25"))
	b.Put([]byte("cpu|host1|0002"), []byte("0.50"))
	b.Put([]byte("cpu|host2|0001"), []byte("0.75"))
	b.Put([]byte("mem|host1|0001"), []byte("512"))
	if err := s.Apply(b); err != nil {
		log.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := s.Put([]byte("cpu|host1|0003"), []byte("0.10")); err != nil {
		log.Fatal(err)
	}

	it := s.NewIterator(kv.IterOptions{Prefix: []byte("cpu|host1|")})
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Printf("%s = %s\n", it.Key(), it.Value())
	}
	// The same Iterator, moved to another series.
	it.SetBounds([]byte("mem|"), []byte("mem}"))
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Printf("%s = %s\n", it.Key(), it.Value())
	}
	if err := it.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// cpu|host1|0001 = 0.25
	// cpu|host1|0002 = 0.50
	// cpu|host1|0003 = 0.10
	// mem|host1|0001 = 512
}

// Retention: samples are keyed series|day, so everything older than the
// retention of one series is one key range, dropped with one DeleteRange
// (one write, however many samples it covers). A Snapshot taken before
// still reads them; Compact gives their space back once none does.
func ExampleStore_DeleteRange() {
	s, err := kv.Open(kv.DefaultOptions("")) // "" : in memory
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	for day := 1; day <= 5; day++ {
		for _, series := range []string{"cpu", "mem"} {
			b.Put(fmt.Appendf(nil, "%s|2026-11-%02d", series, day), fmt.Appendf(nil, "%d", day*10))
		}
	}
	if err := s.Apply(b); err != nil {
		log.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		log.Fatal(err)
	}
	audit := s.Snapshot()

	// Keep three days of cpu: drop cpu|... up to (not including) day 3.
	if err := s.DeleteRange([]byte("cpu|"), []byte("cpu|2026-11-03")); err != nil {
		log.Fatal(err)
	}
	it := s.NewIterator(kv.IterOptions{Prefix: []byte("cpu|")})
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Printf("%s = %s\n", it.Key(), it.Value())
	}
	if err := it.Close(); err != nil {
		log.Fatal(err)
	}
	v, _ := audit.Get([]byte("cpu|2026-11-01"))
	fmt.Printf("snapshot still reads cpu|2026-11-01 = %s\n", v)
	_, err = s.Get([]byte("cpu|2026-11-01"))
	fmt.Println("now:", err)
	_ = audit.Close()
	if err := s.Compact(); err != nil {
		log.Fatal(err)
	}
	st := s.Stats()
	fmt.Printf("after compaction: %d cells, %d range tombstones\n", st.Cells, st.RangeDels)
	// Output:
	// cpu|2026-11-03 = 30
	// cpu|2026-11-04 = 40
	// cpu|2026-11-05 = 50
	// snapshot still reads cpu|2026-11-01 = 10
	// now: kv: not found
	// after compaction: 8 cells, 0 range tombstones
}

// The latest value of a series: keys sort by series then big-endian
// timestamp, so SeekLT just past the series lands on its newest sample, and
// Prev walks back through the ones before it.
func ExampleIterator_SeekLT() {
	s, err := kv.Open(kv.DefaultOptions("")) // "" : in memory
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	sample := func(series string, ts uint64) []byte {
		return binary.BigEndian.AppendUint64([]byte(series+"|"), ts)
	}
	for ts := uint64(1); ts <= 5; ts++ {
		_ = s.Put(sample("cpu", ts), fmt.Appendf(nil, "%d%%", 10*ts))
		_ = s.Put(sample("mem", ts), fmt.Appendf(nil, "%d MB", 100*ts))
		if ts == 3 {
			_ = s.Flush() // older samples in blocks, newer in the memstore
		}
	}
	_ = s.Delete(sample("cpu", 5)) // a retracted sample

	it := s.NewIterator(kv.IterOptions{})
	if it.SeekLT([]byte("cpu|\xff")) { // past every "cpu|" key, before "mem|"
		fmt.Printf("latest cpu: t=%d %s\n", binary.BigEndian.Uint64(it.Key()[4:]), it.Value())
	}
	if it.Prev() {
		fmt.Printf("before it:  t=%d %s\n", binary.BigEndian.Uint64(it.Key()[4:]), it.Value())
	}
	// Bounds around one series: Last is its newest sample.
	it.SetBounds([]byte("mem|"), []byte("mem}"))
	if it.Last() {
		fmt.Printf("latest mem: t=%d %s\n", binary.BigEndian.Uint64(it.Key()[4:]), it.Value())
	}
	if err := it.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// latest cpu: t=4 40%
	// before it:  t=3 30%
	// latest mem: t=5 500 MB
}

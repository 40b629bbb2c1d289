package colbench

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable/rowblk"

	"github.com/kvenc/kvenc/bench/internal/pebbleblk"
	"github.com/kvenc/kvenc/blockenc"
)

// Op is what a Timer times.
type Op int

// The timed operations. A seek op is one SeekGE to the next target; a scan
// op reads every cell of every block of the column (divide by Cells for
// ns/cell), touching key and value.
const (
	SeekWarm Op = iota // SeekGE in a block already read (kvenc: Init'd; Pebble: decompressed, iterator Init'd)
	SeekCold           // read the target's block (Init, decompress), then SeekGE
	NextWarm           // First and Next over every block already read
	ScanCold           // read each block, then First and Next over it
)

// OpNames names the ops, by Op.
var OpNames = []string{"seekwarm", "seekcold", "nextwarm", "scancold"}

// Timer is one benchmark body of one subject.
type Timer struct {
	Subject int // index into Subjects
	Op      Op
	Fn      func(b *testing.B)
}

// Timers returns the benchmark bodies over e: every op of every kvenc
// subject, and for Pebble the warm ops once (under Pebble: the three Pebble
// subjects read the same decompressed block) and the cold ops per
// compression. They come op by op, so that run in order the subjects of
// one op run next to each other. The bodies set up their seekers and
// iterators outside the timer, each run anew, so the subjects of a column
// hold no decoded blocks between runs.
func (e *Encoded) Timers() []Timer {
	var out []Timer
	for op := SeekWarm; op <= ScanCold; op++ {
		for s, blocks := range e.Kvenc {
			out = append(out, Timer{s, op, kvencTimer(op, blocks, e.Targets)})
		}
		if op == SeekWarm || op == NextWarm {
			out = append(out, Timer{Pebble, op, pebbleTimer(op, e.Pebble[0], e.Targets)})
			continue
		}
		for p, blocks := range e.Pebble {
			out = append(out, Timer{Pebble + p, op, pebbleTimer(op, blocks, e.Targets)})
		}
	}
	return out
}

func kvencTimer(op Op, blocks [][]byte, ts []Target) func(*testing.B) {
	switch op {
	case SeekWarm:
		return kvencSeekWarm(blocks, ts)
	case SeekCold:
		return kvencSeekCold(blocks, ts)
	case NextWarm:
		return kvencNextWarm(blocks)
	}
	return kvencScanCold(blocks)
}

func pebbleTimer(op Op, blocks []pebbleblk.Block, ts []Target) func(*testing.B) {
	switch op {
	case SeekWarm:
		return pebbleSeekWarm(blocks, ts)
	case SeekCold:
		return pebbleSeekCold(blocks, ts)
	case NextWarm:
		return pebbleNextWarm(blocks)
	}
	return pebbleScanCold(blocks)
}

func kvencSeekers(b *testing.B, blocks [][]byte) []blockenc.Seeker {
	ss := make([]blockenc.Seeker, len(blocks))
	for i := range ss {
		if err := ss[i].Init(blocks[i]); err != nil {
			b.Fatal(err)
		}
	}
	return ss
}

func kvencSeekWarm(blocks [][]byte, ts []Target) func(*testing.B) {
	return func(b *testing.B) {
		ss := kvencSeekers(b, blocks)
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t := &ts[i%len(ts)]
			s := &ss[t.Block]
			if !s.SeekGE(t.Key) {
				b.Fatal("SeekGE found nothing", s.Err())
			}
			sink += len(s.Value())
		}
		sinkInt = sink
	}
}

func kvencSeekCold(blocks [][]byte, ts []Target) func(*testing.B) {
	return func(b *testing.B) {
		var s blockenc.Seeker
		sink := 0
		for i := 0; i < b.N; i++ {
			t := &ts[i%len(ts)]
			if err := s.Init(blocks[t.Block]); err != nil || !s.SeekGE(t.Key) {
				b.Fatal("SeekGE found nothing", err, s.Err())
			}
			sink += len(s.Value())
		}
		sinkInt = sink
	}
}

func kvencNextWarm(blocks [][]byte) func(*testing.B) {
	return func(b *testing.B) {
		ss := kvencSeekers(b, blocks)
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j := range ss {
				s := &ss[j]
				for ok := s.First(); ok; ok = s.Next() {
					sink += len(s.Key()) + len(s.Value())
				}
			}
		}
		sinkInt = sink
	}
}

func kvencScanCold(blocks [][]byte) func(*testing.B) {
	return func(b *testing.B) {
		var s blockenc.Seeker
		sink := 0
		for i := 0; i < b.N; i++ {
			for _, blk := range blocks {
				if err := s.Init(blk); err != nil {
					b.Fatal(err)
				}
				for ok := s.First(); ok; ok = s.Next() {
					sink += len(s.Key()) + len(s.Value())
				}
			}
		}
		sinkInt = sink
	}
}

// pebbleIters returns an iterator Init'd on each uncompressed block.
func pebbleIters(b *testing.B, raw []pebbleblk.Block) []rowblk.Iter {
	its := make([]rowblk.Iter, len(raw))
	for i := range its {
		if err := pebbleblk.InitIter(&its[i], raw[i].Data()); err != nil {
			b.Fatal(err)
		}
	}
	return its
}

func pebbleSeekWarm(raw []pebbleblk.Block, ts []Target) func(*testing.B) {
	return func(b *testing.B) {
		its := pebbleIters(b, raw)
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t := &ts[i%len(ts)]
			kv := its[t.Block].SeekGE(t.Key, 0)
			if kv == nil {
				b.Fatal("SeekGE found nothing")
			}
			sink += len(kv.InPlaceValue())
		}
		sinkInt = sink
	}
}

func pebbleSeekCold(blocks []pebbleblk.Block, ts []Target) func(*testing.B) {
	return func(b *testing.B) {
		var r pebbleblk.Reader
		sink := 0
		for i := 0; i < b.N; i++ {
			t := &ts[i%len(ts)]
			if err := r.Init(blocks[t.Block]); err != nil {
				b.Fatal(err)
			}
			kv := r.It.SeekGE(t.Key, 0)
			if kv == nil {
				b.Fatal("SeekGE found nothing")
			}
			sink += len(kv.InPlaceValue())
		}
		sinkInt = sink
	}
}

func pebbleNextWarm(raw []pebbleblk.Block) func(*testing.B) {
	return func(b *testing.B) {
		its := pebbleIters(b, raw)
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j := range its {
				it := &its[j]
				for kv := it.First(); kv != nil; kv = it.Next() {
					sink += len(kv.K.UserKey) + len(kv.InPlaceValue())
				}
			}
		}
		sinkInt = sink
	}
}

func pebbleScanCold(blocks []pebbleblk.Block) func(*testing.B) {
	return func(b *testing.B) {
		var r pebbleblk.Reader
		sink := 0
		for i := 0; i < b.N; i++ {
			for _, blk := range blocks {
				if err := r.Init(blk); err != nil {
					b.Fatal(err)
				}
				for kv := r.It.First(); kv != nil; kv = r.It.Next() {
					sink += len(kv.K.UserKey) + len(kv.InPlaceValue())
				}
			}
		}
		sinkInt = sink
	}
}

// sinkInt keeps the compiler from dropping benchmark work.
var sinkInt int

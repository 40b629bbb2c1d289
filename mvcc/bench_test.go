package mvcc

import (
	"testing"
)

var sinkSeq uint64

// BenchmarkBeginComplete measures one Begin+Complete pair: the cost every
// write pays. mode=wait uses CompleteAndWait (uncontended, so it never waits).
func BenchmarkBeginComplete(b *testing.B) {
	b.Run("mode=complete", func(b *testing.B) {
		tr := NewTracker(0)
		b.ReportAllocs()
		for b.Loop() {
			w := tr.Begin()
			tr.Complete(w)
		}
		sinkSeq = tr.ReadPoint()
	})
	b.Run("mode=wait", func(b *testing.B) {
		tr := NewTracker(0)
		b.ReportAllocs()
		for b.Loop() {
			tr.CompleteAndWait(tr.Begin())
		}
		sinkSeq = tr.ReadPoint()
	})
	// mode=parallel: GOMAXPROCS goroutines contend for the tracker.
	b.Run("mode=parallel", func(b *testing.B) {
		tr := NewTracker(0)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				tr.Complete(tr.Begin())
			}
		})
		sinkSeq = tr.ReadPoint()
	})
}

func BenchmarkReadPoint(b *testing.B) {
	tr := NewTracker(42)
	b.ReportAllocs()
	var s uint64
	for b.Loop() {
		s += tr.ReadPoint()
	}
	sinkSeq = s
}

func BenchmarkSnapshot(b *testing.B) {
	tr := NewTracker(0)
	b.ReportAllocs()
	for b.Loop() {
		s := tr.Snapshot()
		sinkSeq = s.Seq()
		s.Release()
	}
}

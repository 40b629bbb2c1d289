package main

import (
	"math"

	"github.com/kvenc/kvenc/bench/internal/intsbench"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// intsGoals checks the goals for shapeshift Balanced on the lineitem
// columns.
func intsGoals(rs resultIndex, cols []intsbench.Column) *report.Table {
	t := newGoalTable("ints_goals", "ints goals: shapeshift Balanced on the lineitem columns")
	add := t.add
	var bal, lz, zs, values, encNs float64
	larger := 0
	packedMax, otherMax, getMax := math.NaN(), math.NaN(), math.NaN()
	for _, col := range cols {
		b, ok1 := rs.get(col.Name, balanced)
		l, ok2 := rs.get(col.Name, lz4Pack)
		z, ok3 := rs.get(col.Name, "zstd")
		if !ok1 || !ok2 || !ok3 {
			add("all codecs checked on "+col.Name, math.NaN(), 0, false, 0)
			return t.Table
		}
		bal, lz, zs = bal+float64(b.Bytes), lz+float64(l.Bytes), zs+float64(z.Bytes)
		if b.Bytes > l.Bytes {
			larger++
		}
		values += float64(b.Values)
		encNs += b.Encode * float64(b.Values)
		if onlyPacked(b.Composition) {
			packedMax = nanMax(packedMax, b.Decode)
		} else {
			otherMax = nanMax(otherMax, b.Decode)
		}
		getMax = nanMax(getMax, b.Get)
	}
	add("total size / lz4-bytepack total", bal/lz, 0.75, bal/lz <= 0.75, 3)
	add("total size / zstd total", bal/zs, 1, bal < zs, 3)
	add("columns larger than their lz4-bytepack", float64(larger), 0, larger == 0, 0)
	add("decode ns/value, worst all-packed column", packedMax, 0.5, packedMax <= 0.5, 2)
	add("decode ns/value, worst column with RLE/LZ4/Patched/Raw", otherMax, 1.2, otherMax <= 1.2, 2)
	add("random Get ns, worst column", getMax, 5, getMax <= 5, 2)
	mps := values / encNs * 1e3
	add("encode M values/s (all columns)", mps, 50, mps >= 50, 1)
	t.Note("packed forms: %v", packedForms)
	return t.Table
}

var packedForms = []shapeshift.Form{shapeshift.Zero, shapeshift.Constant, shapeshift.BytePack, shapeshift.BitPack, shapeshift.Delta}

func onlyPacked(comp map[shapeshift.Form]int) bool {
	for f, n := range comp {
		packed := false
		for _, p := range packedForms {
			packed = packed || f == p
		}
		if n > 0 && !packed {
			return false
		}
	}
	return true
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return math.Max(a, b)
}

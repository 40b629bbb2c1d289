package main

import (
	"math"

	"github.com/kvenc/kvenc/bench/internal/report"
)

// goalTable is a goals table: one row per goal with what was measured,
// the limit and whether it is met ("-" when nothing was measured).
type goalTable struct{ *report.Table }

func newGoalTable(name, title string) goalTable {
	return goalTable{report.NewTable(name, title, "goal", "measured", "limit", "met")}
}

// add appends a goal row; ok says whether v meets limit.
func (t goalTable) add(goal string, v, limit float64, ok bool, prec int) {
	met := "no"
	if ok {
		met = "yes"
	}
	if math.IsNaN(v) {
		met = "-"
	}
	t.Add(goal, report.Float(v, prec), report.Float(limit, prec), met)
}

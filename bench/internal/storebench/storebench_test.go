package storebench

import (
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// TestEnginesOnSmallData loads a few thousand cells of each layout into
// every engine and checks the harness' own checks pass and every number
// is filled in.
func TestEnginesOnSmallData(t *testing.T) {
	sets := map[string][]dataset.KV{"series": dataset.SeriesCells(400)} // kvbench's tests run the other layouts
	for name, kvs := range sets {
		for _, e := range Engines() {
			r := Measure(e, t.TempDir(), kvs, Options{Rounds: 2, Gets: 50, Seeks: 20}, func(string) {})
			if r.Err != nil {
				t.Errorf("%s on %s: %v", e.Name, name, r.Err)
				continue
			}
			if r.DiskBytes <= 0 || r.Load <= 0 || !(r.ScanPerCell > 0) || !(r.GetP99 >= r.GetP50) || !(r.SeekNext > 0) ||
				r.ScanCount != 2 || r.GetCount != 100 {
				t.Errorf("%s on %s: %+v", e.Name, name, r)
			}
		}
	}
}

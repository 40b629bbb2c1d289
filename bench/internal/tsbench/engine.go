package tsbench

// Engine is one store of time series under measurement.
type Engine interface {
	// Scrape appends sample i of every series, as one batch.
	Scrape(series []Series, i int) error
	// Compact makes the stored form final: everything flushed and merged.
	Compact() error
	// Reopen closes the engine and opens it again on the same directory.
	Reopen() error
	// Query reads the samples of one series with mint <= t <= maxt and
	// returns how many there are and the sum of their values.
	Query(name string, mint, maxt int64) (n int, sum float64, err error)
	Close() error
}

// Engines are the engine names, kvenc first, and their constructors.
var Engines = []struct {
	Name string
	Open func(dir string) (Engine, error)
}{
	{"kvenc", openKvenc},
	{"prometheus", openProm},
}

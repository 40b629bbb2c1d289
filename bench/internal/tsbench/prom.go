package tsbench

import (
	"context"
	"log/slog"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

type promEngine struct {
	dir  string
	db   *tsdb.DB
	refs map[string]storage.SeriesRef
	lbls map[string]labels.Labels
	it   chunkenc.Iterator
}

func openProm(dir string) (Engine, error) {
	e := &promEngine{dir: dir, refs: map[string]storage.SeriesRef{}, lbls: map[string]labels.Labels{}}
	return e, e.open()
}

func (e *promEngine) open() error {
	db, err := tsdb.Open(e.dir, slog.New(slog.DiscardHandler), nil, tsdb.DefaultOptions(), nil)
	if err != nil {
		return err
	}
	db.DisableCompactions()
	e.db = db
	clear(e.refs)
	return nil
}

func (e *promEngine) Scrape(series []Series, i int) error {
	app := e.db.Appender(context.Background())
	for s := range series {
		name := series[s].Name
		l, ok := e.lbls[name]
		if !ok {
			l = labels.FromStrings(labels.MetricName, name)
			e.lbls[name] = l
		}
		ref, err := app.Append(e.refs[name], l, series[s].T[i], series[s].V[i])
		if err != nil {
			app.Rollback()
			return err
		}
		e.refs[name] = ref
	}
	return app.Commit()
}

// Compact writes the whole head into one block.
func (e *promEngine) Compact() error {
	h := e.db.Head()
	return e.db.CompactHead(tsdb.NewRangeHead(h, h.MinTime(), h.MaxTime()))
}

func (e *promEngine) Reopen() error {
	if err := e.db.Close(); err != nil {
		return err
	}
	return e.open()
}

func (e *promEngine) Query(name string, mint, maxt int64) (int, float64, error) {
	q, err := e.db.Querier(mint, maxt)
	if err != nil {
		return 0, 0, err
	}
	ss := q.Select(context.Background(), false, nil, labels.MustNewMatcher(labels.MatchEqual, labels.MetricName, name))
	n, sum := 0, 0.0
	for ss.Next() {
		e.it = ss.At().Iterator(e.it)
		for e.it.Next() == chunkenc.ValFloat {
			_, v := e.it.At()
			sum += v
			n++
		}
		if err := e.it.Err(); err != nil {
			q.Close()
			return n, sum, err
		}
	}
	if err := ss.Err(); err != nil {
		q.Close()
		return n, sum, err
	}
	return n, sum, q.Close()
}

func (e *promEngine) Close() error { return e.db.Close() }

package ycsbbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/magiconair/properties"

	"github.com/kvenc/kvenc/bench/internal/quiet"
	"github.com/pingcap/go-ycsb/pkg/measurement"
	"github.com/pingcap/go-ycsb/pkg/prop"
	_ "github.com/pingcap/go-ycsb/pkg/workload" // registers "core"
	"github.com/pingcap/go-ycsb/pkg/ycsb"
)

// Workload is one YCSB core workload: its name and the properties that
// differ from the common ones.
type Workload struct {
	Name  string
	Props map[string]string
	// OpsDiv divides the operation count (E's scans read up to 100
	// records each).
	OpsDiv int
}

// Workloads are upstream YCSB's core workloads A, B, C, E and F. D (read
// latest) is not run: its reads follow the newest insert of one counter
// that every client shares, and each client here has its own (see phase).
var Workloads = []Workload{
	{"A", map[string]string{prop.ReadProportion: "0.5", prop.UpdateProportion: "0.5", prop.RequestDistribution: "zipfian"}, 1},
	{"B", map[string]string{prop.ReadProportion: "0.95", prop.UpdateProportion: "0.05", prop.RequestDistribution: "zipfian"}, 1},
	{"C", map[string]string{prop.ReadProportion: "1", prop.RequestDistribution: "zipfian"}, 1},
	{"E", map[string]string{prop.ScanProportion: "0.95", prop.InsertProportion: "0.05", prop.RequestDistribution: "zipfian",
		prop.MaxScanLength: "100", prop.ScanLengthDistribution: "uniform"}, 10},
	{"F", map[string]string{prop.ReadProportion: "0.5", prop.ReadModifyWriteProportion: "0.5", prop.RequestDistribution: "zipfian"}, 1},
}

// The phases besides the workloads: the load into an empty store, and the
// durable load (every insert synced before it returns) into another.
const (
	LoadPhase     = "load"
	SyncLoadPhase = "load sync"
)

// Options size a run.
type Options struct {
	// Records are loaded, then each workload runs Ops operations (E
	// Ops/OpsDiv), all of it once per count in Goroutines, on a fresh
	// store each time.
	Records, Ops int
	Goroutines   []int
	// Config is every engine's; Config.Sync is ignored: only the durable
	// load syncs.
	Config Config
	// SyncRecords are loaded with Config.Sync on, once per count in
	// Goroutines, into a fresh store each time (0: no durable load).
	SyncRecords int
}

// Result is one phase on one engine from one number of client goroutines.
type Result struct {
	Engine, Workload string
	Goroutines       int
	// Ops counts every operation, NotFound those on a record that does
	// not exist: go-ycsb (as upstream YCSB) draws zipfian keys up to one
	// past the last record. Upstream counts them as READ-FAILED and goes
	// on; so does this.
	Ops, NotFound int
	OpsPerSec     float64 // Ops over the phase's wall time
	P50, P99      time.Duration
	ByOp          []OpResult // per operation kind, in Op order
}

// OpResult is the latency of one kind of operation in a phase.
type OpResult struct {
	Op       Op
	Ops      int
	P50, P99 time.Duration
}

// Run loads o.Records records into a fresh store of e and runs every
// workload on it, from each count of client goroutines in turn, then the
// durable load; stores live in subdirectories of dir, removed when done.
// The first error stops the run (no number is reported for a run that
// failed). go-ycsb prints its key ranges on stdout: Run silences it.
func Run(e Engine, dir string, o Options, step func(string)) (res []Result, err error) {
	err = quiet.Stdout(func() error {
		res, err = run(e, dir, o, step)
		return err
	})
	return res, err
}

func run(e Engine, dir string, o Options, step func(string)) ([]Result, error) {
	var out []Result
	c := o.Config
	c.Sync = false
	for _, g := range o.Goroutines {
		err := withStore(e, filepath.Join(dir, fmt.Sprintf("%s-%d", e.Name, g)), c, func(d db) error {
			r, err := load(e.Name, LoadPhase, d, o.Records, g)
			if err != nil {
				return err
			}
			out = append(out, r)
			step(fmt.Sprintf("%s load %dg", e.Name, g))
			for _, w := range Workloads {
				r, err := transactions(e.Name, d, w, o.Records, max(o.Ops/w.OpsDiv, 1), g)
				if err != nil {
					return err
				}
				out = append(out, r)
				step(fmt.Sprintf("%s %s %dg", e.Name, w.Name, g))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if o.SyncRecords <= 0 {
		return out, nil
	}
	c.Sync = true
	for _, g := range o.Goroutines {
		err := withStore(e, filepath.Join(dir, fmt.Sprintf("%s-sync-%d", e.Name, g)), c, func(d db) error {
			r, err := load(e.Name, SyncLoadPhase, d, o.SyncRecords, g)
			out = append(out, r)
			step(fmt.Sprintf("%s load sync %dg", e.Name, g))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// withStore opens a store of e in dir, calls fn, closes the store and
// removes dir.
func withStore(e Engine, dir string, c Config, fn func(db) error) error {
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s, err := e.Open(dir, c)
	if err != nil {
		return fmt.Errorf("%s: open: %w", e.Name, err)
	}
	err = fn(db{s})
	if cerr := s.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: close: %w", e.Name, cerr)
	}
	return err
}

// workloadProps are go-ycsb's core workload properties for w with records
// loaded and ops operations: 10 fields of 100 bytes, reads of every field.
func workloadProps(w Workload, records, ops int) *properties.Properties {
	p := properties.NewProperties()
	for k, v := range map[string]string{
		prop.RecordCount: strconv.Itoa(records), prop.OperationCount: strconv.Itoa(ops),
		prop.FieldCount: "10", prop.FieldLength: "100", prop.ReadAllFields: "true",
		prop.ReadProportion: "0", prop.UpdateProportion: "0", prop.InsertProportion: "0",
		prop.ScanProportion: "0", prop.ReadModifyWriteProportion: "0",
	} {
		p.Set(k, v)
	}
	for k, v := range w.Props {
		p.Set(k, v)
	}
	return p
}

// load inserts records records from g clients: client t inserts the
// records [lo, lo+n) of its share, as upstream YCSB splits a load among
// client processes (insertstart, insertcount).
func load(engine, name string, d db, records, g int) (Result, error) {
	w := Workload{Name: name, Props: Workloads[0].Props}
	return phase(engine, w, d, records, g, func(lo, n int) *properties.Properties {
		p := workloadProps(w, records, records)
		p.Set(prop.InsertStart, strconv.Itoa(lo))
		p.Set(prop.InsertCount, strconv.Itoa(n))
		return p
	}, func(wl ycsb.Workload, ctx context.Context, d ycsb.DB) error { return wl.DoInsert(ctx, d) })
}

// transactions runs ops operations of w from g clients. Every client draws
// its keys from the whole loaded key range (insertcount = records); the
// records it inserts (E) start at records + lo, where lo is the number of
// operations of the clients before it, so that no two clients insert the
// same key (with one client, the keys a single go-ycsb client inserts).
func transactions(engine string, d db, w Workload, records, ops, g int) (Result, error) {
	return phase(engine, w, d, ops, g, func(lo, _ int) *properties.Properties {
		p := workloadProps(w, records+lo, ops)
		p.Set(prop.InsertCount, strconv.Itoa(records))
		return p
	}, func(wl ycsb.Workload, ctx context.Context, d ycsb.DB) error { return wl.DoTransaction(ctx, d) })
}

// phase runs ops operations of w from g client goroutines at once and
// times each; props gives the properties of the client whose share is the
// operations [lo, lo+n).
//
// Each client goroutine has a go-ycsb core workload of its own, created
// from its properties, and its own thread state (InitThread): go-ycsb's
// workload keeps its key, operation and field generators in the workload,
// shared by every thread, and they write their last value without
// synchronisation (a data race under -race; its insert counter's window,
// too). A generator per client draws from the same distribution as a
// shared one (the zipfian and uniform generators keep no state but that
// last value), so A, B, C and F ask what one shared workload asks; the
// load and E's inserts give each client its own key range (load, above).
func phase(engine string, w Workload, d db, ops, g int, props func(lo, n int) *properties.Properties,
	op func(ycsb.Workload, context.Context, ycsb.DB) error) (Result, error) {
	creator := ycsb.GetWorkloadCreator("core")
	wls := make([]ycsb.Workload, g)
	ctxs := make([]context.Context, g)
	ns := make([]int, g)
	lo := 0
	for t := range g {
		ns[t] = ops / g
		if t < ops%g {
			ns[t]++
		}
		p := props(lo, ns[t])
		if t == 0 {
			measurement.InitMeasure(p) // the workload records read-modify-writes there
		}
		wl, err := creator.Create(p)
		if err != nil {
			return Result{}, err
		}
		defer wl.Close()
		wls[t] = wl
		ctxs[t] = d.InitThread(wl.InitThread(context.Background(), t, g), t, g)
		lo += ns[t]
	}
	errs := make([]error, g)
	var wg sync.WaitGroup
	start := time.Now()
	for t := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := ctxs[t]
			c := ctx.Value(clientKey{}).(*client)
			for range ns[t] {
				c.calls = 0
				t0 := time.Now()
				err := op(wls[t], ctx, d)
				lat := int64(time.Since(t0))
				if errors.Is(err, errNotFound) {
					c.notFound++
				} else if err != nil {
					errs[t] = fmt.Errorf("%s %s: %w", engine, w.Name, err)
					return
				}
				c.lat[c.kind()] = append(c.lat[c.kind()], lat)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	r := Result{Engine: engine, Workload: w.Name, Goroutines: g}
	var all []int64
	for o := range numOps {
		var lats []int64
		for _, ctx := range ctxs {
			lats = append(lats, ctx.Value(clientKey{}).(*client).lat[o]...)
		}
		if len(lats) == 0 {
			continue
		}
		p50, p99 := percentiles(lats)
		r.ByOp = append(r.ByOp, OpResult{Op: o, Ops: len(lats), P50: p50, P99: p99})
		all = append(all, lats...)
	}
	for _, ctx := range ctxs {
		r.NotFound += ctx.Value(clientKey{}).(*client).notFound
	}
	r.Ops = len(all)
	r.OpsPerSec = float64(r.Ops) / elapsed.Seconds()
	r.P50, r.P99 = percentiles(all)
	return r, nil
}

// percentiles returns the median and 99th percentile (nearest rank) of
// lats, which it sorts.
func percentiles(lats []int64) (p50, p99 time.Duration) {
	if len(lats) == 0 {
		return 0, 0
	}
	slices.Sort(lats)
	return time.Duration(lats[len(lats)/2]), time.Duration(lats[min(len(lats)-1, len(lats)*99/100)])
}

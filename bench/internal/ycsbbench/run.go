package ycsbbench

import (
	"context"
	"errors"
	"fmt"
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

// Workloads are upstream YCSB's core workloads A to F.
var Workloads = []Workload{
	{"A", map[string]string{prop.ReadProportion: "0.5", prop.UpdateProportion: "0.5", prop.RequestDistribution: "zipfian"}, 1},
	{"B", map[string]string{prop.ReadProportion: "0.95", prop.UpdateProportion: "0.05", prop.RequestDistribution: "zipfian"}, 1},
	{"C", map[string]string{prop.ReadProportion: "1", prop.RequestDistribution: "zipfian"}, 1},
	{"D", map[string]string{prop.ReadProportion: "0.95", prop.InsertProportion: "0.05", prop.RequestDistribution: "latest"}, 1},
	{"E", map[string]string{prop.ScanProportion: "0.95", prop.InsertProportion: "0.05", prop.RequestDistribution: "zipfian",
		prop.MaxScanLength: "100", prop.ScanLengthDistribution: "uniform"}, 10},
	{"F", map[string]string{prop.ReadProportion: "0.5", prop.ReadModifyWriteProportion: "0.5", prop.RequestDistribution: "zipfian"}, 1},
}

// Options size a run. Threads above 1 race inside go-ycsb (its workload
// shares generators between threads and writes their last value without
// synchronisation): kvbench uses one.
type Options struct {
	Records, Ops, Threads int
}

// Result is one phase ("load" or a workload) on one engine.
type Result struct {
	Engine, Workload string
	Ops              int
	// NotFound counts operations on a record that does not exist: go-ycsb
	// (as upstream YCSB) draws zipfian keys from one past the last record,
	// and D and E may read keys whose insert has not landed. Upstream
	// counts them as READ-FAILED and goes on; so does this.
	NotFound  int
	OpsPerSec float64
	P50, P99  time.Duration
}

func properties4(o Options, w Workload) *properties.Properties {
	p := properties.NewProperties()
	set := func(k, v string) { p.Set(k, v) }
	for k, v := range map[string]string{
		prop.RecordCount: strconv.Itoa(o.Records), prop.OperationCount: strconv.Itoa(o.Ops),
		prop.FieldCount: "10", prop.FieldLength: "100", prop.ReadAllFields: "true",
		prop.ReadProportion: "0", prop.UpdateProportion: "0", prop.InsertProportion: "0",
		prop.ScanProportion: "0", prop.ReadModifyWriteProportion: "0",
	} {
		set(k, v)
	}
	for k, v := range w.Props {
		set(k, v)
	}
	return p
}

// Run loads o.Records records into a fresh Store of e in dir, then runs
// every workload in order on it; the first error stops the run (no number
// is reported for a run that failed). go-ycsb prints its key ranges on
// stdout: Run silences it.
func Run(e Engine, dir string, o Options, step func(string)) (res []Result, err error) {
	err = quiet.Stdout(func() error {
		res, err = run(e, dir, o, step)
		return err
	})
	return res, err
}

func run(e Engine, dir string, o Options, step func(string)) ([]Result, error) {
	s, err := e.Open(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	d := db{s}
	load := Workload{Name: "load", Props: Workloads[0].Props, OpsDiv: 1}
	r, err := phase(e.Name, d, load, o, 1, o.Records, func(w ycsb.Workload, ctx context.Context) error { return w.DoInsert(ctx, d) })
	if err != nil {
		return nil, err
	}
	step(e.Name + " load")
	out := []Result{r}
	for _, w := range Workloads {
		ops := max(o.Ops/w.OpsDiv, 1)
		r, err := phase(e.Name, d, w, o, o.Threads, ops, func(wl ycsb.Workload, ctx context.Context) error { return wl.DoTransaction(ctx, d) })
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		step(e.Name + " " + w.Name)
	}
	return out, nil
}

// phase runs ops operations of w on threads goroutines and times each.
func phase(engine string, d db, w Workload, o Options, threads, ops int, op func(ycsb.Workload, context.Context) error) (Result, error) {
	p := properties4(o, w)
	measurement.InitMeasure(p) // the workload records read-modify-writes there
	wl, err := ycsb.GetWorkloadCreator("core").Create(p)
	if err != nil {
		return Result{}, err
	}
	defer wl.Close()
	lats := make([][]time.Duration, threads)
	errs := make([]error, threads)
	notFound := make([]int, threads)
	var wg sync.WaitGroup
	start := time.Now()
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := wl.InitThread(context.Background(), t, threads)
			defer wl.CleanupThread(ctx)
			n := ops / threads
			if t < ops%threads {
				n++
			}
			for range n {
				t0 := time.Now()
				err := op(wl, ctx)
				d := time.Since(t0)
				if errors.Is(err, errNotFound) {
					notFound[t]++
				} else if err != nil {
					errs[t] = fmt.Errorf("%s %s: %w", engine, w.Name, err)
					return
				}
				lats[t] = append(lats[t], d)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return Result{}, err
		}
	}
	all := slices.Concat(lats...)
	slices.Sort(all)
	nf := 0
	for _, n := range notFound {
		nf += n
	}
	return Result{Engine: engine, Workload: w.Name, Ops: len(all), NotFound: nf,
		OpsPerSec: float64(len(all)) / elapsed.Seconds(),
		P50:       all[len(all)/2], P99: all[min(len(all)-1, len(all)*99/100)]}, nil
}

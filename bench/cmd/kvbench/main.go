// Command kvbench runs kvenc's benchmarks against its peers and writes
// what it finds as aligned tables on stdout, one CSV file per table and PNG
// plots in -out.
//
//	kvbench [flags] seek|ints|floats|timeseries|store|ycsb|diskfull|all [flags]
//
// Subcommands:
//
//	seek   block seeks per kvenc encoding vs Pebble v2's rowblk on the same cells;
//	       lineitem columns in the column layout, sized and timed;
//	       row and time series cells sized against Pebble and Badger with
//	       their own compression
//	ints   shapeshift integer columns vs LZ4 byte packing, uvarint, zstd and
//	       Pebble colblk uints on TPC-H lineitem and time series columns
//	floats kvenc's float columns vs Prometheus XOR chunks, VictoriaMetrics'
//	       value encoding and zstd on ALP's 31 sample files, with ALP's
//	       own figure per file
//	timeseries
//	       the ALP files as time series (15 s scrapes, days of them) in
//	       kvenc's store vs Prometheus's TSDB: bytes per sample, ingest,
//	       range queries
//	store  kvenc's store vs raw Badger v4 vs Pebble v2, equal block caches
//	       (-cache), each engine in a child process of its own; with
//	       -engine tikv, kvenc's store on TiKV vs one TiKV key per cell on
//	       lineitem (client-go's in-process mock, or -pd host:port,...)
//	store-tikv
//	       store -engine tikv (all runs it on the mock)
//	ycsb   YCSB workloads through go-ycsb from 1, 4 and 16 goroutines and
//	       single-cell Puts, kvenc vs Badger v4 vs Pebble v2
//	diskfull
//	       kvenc's store on tmpfs volumes of 16, 48 and 256 MiB filled from
//	       1 and 16 goroutines until it refuses writes, each run in a child
//	       process: crashes, acknowledged cells, live data, cells lost
//	       (needs root to mount tmpfs; skipped otherwise)
//	all    every subcommand above
//
//	kvbench lineitem-csv [-scale F] [-o FILE]
//
// writes the store benchmark's lineitem cells as CSV rows orderkey,
// linenumber,value, for kvenc advise --key 1:u8,2:u4 --value 3.
//
// Data is generated at run time with fixed seeds (TPC-H lineitem through
// go-tpc's dbgen: see internal/dataset for the TPC notice). seek and ints
// time with testing.Benchmark in this process, the subjects of one table
// interleaved, repeated -count times; store and ycsb run their engines one
// after another. Tables show medians and the ratio kvenc / peer (below 1 means kvenc is smaller or faster). With -results,
// the whole output is also written to a Markdown file with the plots.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kvenc/kvenc/bench/internal/storebench"
)

func main() {
	if isDiskfullChild() { // one full-disk run, in a process that may crash
		if err := diskfullChild(); err != nil {
			fmt.Fprintln(os.Stderr, "kvbench diskfull child:", err)
			os.Exit(1)
		}
		return
	}
	if storebench.IsChild() { // one store engine, measured in a process of its own
		if err := storebench.ChildMain(os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "kvbench store child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kvbench:", err)
		os.Exit(1)
	}
}

type subcommand struct {
	name string
	run  func(*env) error
}

// subcommands in the order "all" runs them.
var subcommands = []subcommand{
	{"seek", runSeek},
	{"ints", runInts},
	{"floats", runFloats},
	{"timeseries", runTimeseries},
	{"store", runStore},
	{"store-tikv", runStoreTiKV},
	{"ycsb", runYCSB},
	{"diskfull", runDiskfull},
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "lineitem-csv" {
		return runLineitemCSV(args[1:], stdout, stderr)
	}
	cfg, cmd, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	var out bytes.Buffer // the whole output, for -results
	if cfg.results != "" {
		stdout = io.MultiWriter(stdout, &out)
	}
	e, err := newEnv(cfg, stdout)
	if err != nil {
		return err
	}
	defer e.close()
	defer e.cleanupOnSignal()()
	stop, err := storebench.StartCPUProfile(cfg.cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	e.header()
	for _, sc := range subcommands {
		if cmd == "all" || cmd == sc.name {
			start := time.Now()
			if err := sc.run(e); err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			fmt.Fprintf(stdout, "(%s took %s)\n\n", sc.name, time.Since(start).Round(100*time.Millisecond))
		}
	}
	fmt.Fprintf(stdout, "CSV and PNG files in %s; wall time %s\n", cfg.out, e.elapsed())
	if cfg.results != "" {
		return writeResults(cfg.results, args, out.String(), e)
	}
	return nil
}

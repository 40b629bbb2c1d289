package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/storebench"
	"github.com/kvenc/kvenc/kv"
)

// config is what the flags set.
type config struct {
	datasets   []string // empty: every dataset
	scale      float64  // fraction of TPC-H SF1
	out        string
	count      int
	quick      bool
	cpuprofile string
	benchtime  string
	cache      int64    // block cache bytes per store engine
	results    string   // Markdown file to write the whole output to
	kvenc      string   // store: kv.Options settings of one more engine, kvenc-set
	alpFiles   []string // empty: every file of ALP's samples
	engine     string   // store: "" the local engines, "tikv" kvenc on TiKV vs plain TiKV
	pd         []string // store -engine tikv: a real cluster's PD addresses (empty: the mock)
	engines    []string // store: the local engines to measure (empty: all)
}

// datasetNames are the values -dataset accepts.
var datasetNames = []string{"lineitem", "timeseries", "ycsb", "user", "random"}

func parseFlags(args []string, stderr io.Writer) (config, string, error) {
	var cfg config
	var ds string
	fs := flag.NewFlagSet("kvbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ds, "dataset", "", "comma-separated datasets to use (default all): "+strings.Join(datasetNames, ", ")+
		"\n(seek: user, lineitem, random, timeseries (rows); ints: lineitem, timeseries; store: lineitem, timeseries, ycsb)")
	fs.Float64Var(&cfg.scale, "scale", 0.1, "TPC-H scale as a fraction of SF1 (0.1: the first 150,000 orders, 600,572 rows); also sizes the time series (timeseries: 30 days of samples per series at 1)")
	fs.StringVar(&cfg.out, "out", "out", "directory for CSV and PNG files (created)")
	fs.IntVar(&cfg.count, "count", 0, "rounds per measurement; tables show medians (default 5, 3 with -quick)")
	fs.BoolVar(&cfg.quick, "quick", false, "shorter runs (make bench): 25ms per measurement, 3 rounds")
	fs.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile to this file")
	cache := fs.String("cache", "8MiB", "store: block cache size given to every engine (kvenc CacheSize, Badger BlockCacheSize, Pebble Cache), in bytes or with a KiB, MiB or GiB suffix")
	fs.StringVar(&cfg.results, "results", "", "also write the whole output, with links to the plots (copied to docs/ beside it), to this Markdown file")
	fs.StringVar(&cfg.kvenc, "kvenc", "", "store: also measure kvenc's store with these kv.Options settings applied to its defaults, as engine kvenc-set:\nField=value,... of BlockSize, MemstoreSize, DictSize, CompactionLevel, Encoding, Compression, RestartInterval, CompressionLevel\n(what kvenc advise prints, e.g. CompactionLevel=12)")
	fs.StringVar(&cfg.engine, "engine", "", "store: \"tikv\" compares kvenc's store on TiKV (kvtikv) with one TiKV key per cell instead of the local engines")
	pd := fs.String("pd", "", "store -engine tikv: comma-separated PD addresses (host:port) of a real TiKV cluster; default client-go's in-process mock")
	engines := fs.String("engines", "", "store: comma-separated local engines to measure (default all): "+strings.Join(storeEngineNames(), ", ")+
		"\n(ratios and goals against an engine left out show as -; with -cpuprofile each engine's child also profiles its load into FILE.ENGINE)")
	alpFiles := fs.String("alpfiles", "", "floats, timeseries: comma-separated ALP sample files to use, by name without .csv (default all 31)")
	fs.StringVar(&cfg.benchtime, "benchtime", "", "time per measurement in go test -benchtime syntax (default 200ms, 25ms with -quick)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kvbench [flags] seek|ints|floats|timeseries|store|ycsb|diskfull|all [flags]")
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	if err != nil {
		return cfg, "", err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return cfg, "", errors.New("no subcommand")
	}
	cmd := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return cfg, "", err
	}
	if fs.NArg() > 0 {
		return cfg, "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cmd != "all" && !slices.ContainsFunc(subcommands, func(s subcommand) bool { return s.name == cmd }) {
		return cfg, "", fmt.Errorf("unknown subcommand %q", cmd)
	}
	if ds != "" {
		for _, d := range strings.Split(ds, ",") {
			if !slices.Contains(datasetNames, d) {
				return cfg, "", fmt.Errorf("unknown dataset %q (want %s)", d, strings.Join(datasetNames, ", "))
			}
			cfg.datasets = append(cfg.datasets, d)
		}
	}
	if *engines != "" {
		for _, n := range strings.Split(*engines, ",") {
			if !slices.Contains(storeEngineNames(), n) {
				return cfg, "", fmt.Errorf("unknown engine %q (want %s)", n, strings.Join(storeEngineNames(), ", "))
			}
			cfg.engines = append(cfg.engines, n)
		}
	}
	if *alpFiles != "" {
		cfg.alpFiles = strings.Split(*alpFiles, ",")
	}
	if cfg.scale <= 0 || cfg.scale > 1 {
		return cfg, "", fmt.Errorf("-scale %v: want 0 < scale <= 1", cfg.scale)
	}
	if err := storebench.KvencSettings(new(kv.Options), cfg.kvenc); err != nil {
		return cfg, "", fmt.Errorf("-kvenc: %w", err)
	}
	if cfg.cache, err = parseSize(*cache); err != nil {
		return cfg, "", fmt.Errorf("-cache %q: %w", *cache, err)
	}
	if *pd != "" {
		cfg.pd = strings.Split(*pd, ",")
	}
	if cfg.engine != "" && cfg.engine != "tikv" {
		return cfg, "", fmt.Errorf("-engine %q: want tikv (or nothing)", cfg.engine)
	}
	if cfg.count <= 0 {
		cfg.count = 5
		if cfg.quick {
			cfg.count = 3
		}
	}
	if cfg.benchtime == "" {
		cfg.benchtime = "200ms"
		if cfg.quick {
			cfg.benchtime = "25ms"
		}
	}
	return cfg, cmd, nil
}

// storeEngineNames are the values -engines accepts.
func storeEngineNames() []string {
	var names []string
	for _, e := range storebench.Engines() {
		names = append(names, e.Name)
	}
	return append(names, storebench.KvencSetName)
}

// uses reports whether dataset d is selected.
func (c config) uses(d string) bool {
	return len(c.datasets) == 0 || slices.Contains(c.datasets, d)
}

// parseSize parses a byte count: a positive integer, optionally followed
// by KiB, MiB or GiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = v, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, errors.New("want a positive size such as 8MiB or 1048576")
	}
	return n * mult, nil
}

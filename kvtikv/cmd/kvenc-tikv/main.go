// Command kvenc-tikv is the kvenc command (see github.com/kvenc/kvenc/cmd/kvenc)
// for stores in TiKV: the same commands, where --pd HOST:PORT,... (the
// cluster's PD servers) takes the place of a store directory.
//
//	kvenc-tikv stats --pd HOST:PORT,... [--prefix P] [--json] [--blocks]
//	kvenc-tikv verify --pd HOST:PORT,... [--prefix P]
//	kvenc-tikv dump --pd HOST:PORT,... [--prefix P] [--from K] [--to K] [--reverse] [--versions] [--format text|hex|json]
//	kvenc-tikv block --pd HOST:PORT,... --segment S --block B [--prefix P]
//	kvenc-tikv advise --pd HOST:PORT,... [--prefix P] [flags]
//
// It reads at one timestamp, taken when it connects, and writes nothing:
// it takes no lease, so it runs beside the store's writer. --prefix names
// the store's Options.Prefix (default: the only store in the cluster).
// When PD does not answer within --timeout, it fails naming the
// addresses. Store directories, block files and CSV files are read as by
// kvenc.
//
//	go install github.com/kvenc/kvenc/kvtikv/cmd/kvenc-tikv@latest
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kvenc/kvenc/internal/kvenccli"
	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/inspect"
	"github.com/kvenc/kvenc/kvtikv"
	"github.com/pingcap/log"
	"go.uber.org/zap"
)

func main() {
	// client-go logs through pingcap/log: keep the command's output its own.
	log.ReplaceGlobals(zap.NewNop(), &log.ZapProperties{Level: zap.NewAtomicLevelAt(zap.FatalLevel)})
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, pdOpener{dial: kvtikv.DialReadOnlyEngine}))
}

// run is the command: main calls it with the process's arguments and
// streams, tests with their own and an opener on client-go's mock.
func run(args []string, stdout, stderr io.Writer, o pdOpener) int {
	return kvenccli.Run("kvenc-tikv", args, stdout, stderr, o)
}

// defaultTimeout bounds the wait for PD.
const defaultTimeout = 10 * time.Second

// pdOpener locates a store in TiKV by its PD addresses (--pd).
type pdOpener struct {
	// dial returns a read-only engine on the cluster whose PD servers are
	// addrs (kvtikv.DialReadOnlyEngine; tests' ignores addrs).
	dial func(ctx context.Context, addrs []string) (*kvtikv.Engine, error)
}

func (pdOpener) Where() string { return "--pd HOST:PORT,..." }

func (o pdOpener) Flags(fs *flag.FlagSet) kvenccli.Locator {
	l := &pdLocator{dial: o.dial}
	fs.StringVar(&l.pd, "pd", "", "the TiKV cluster's PD servers, HOST:PORT,... (in place of a store directory)")
	fs.DurationVar(&l.timeout, "timeout", defaultTimeout, "with --pd: how long to wait for PD")
	return l
}

type pdLocator struct {
	dial    func(ctx context.Context, addrs []string) (*kvtikv.Engine, error)
	pd      string
	timeout time.Duration
}

func (l *pdLocator) Given() bool { return l.pd != "" }

// engine connects to the cluster.
func (l *pdLocator) engine() (*kvtikv.Engine, error) {
	var addrs []string
	for _, a := range strings.Split(l.pd, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("--pd %q names no address", l.pd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	return l.dial(ctx, addrs)
}

func (l *pdLocator) Inspect(prefix []byte) (*kvenccli.Target, error) {
	e, err := l.engine()
	if err != nil {
		return nil, err
	}
	v, err := inspect.OpenEngine(e, prefix)
	if err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("pd %s: %w", l.pd, err)
	}
	return &kvenccli.Target{Store: v, Name: "pd " + l.pd, Engine: "TiKV", Closer: e.Close}, nil
}

func (l *pdLocator) Open(prefix []byte) (*kv.Store, error) {
	e, err := l.engine()
	if err != nil {
		return nil, err
	}
	o := kv.DefaultOptions("")
	o.Prefix, o.ReadOnly = prefix, true
	s, err := kv.OpenEngine(e, o) // its Close closes e
	if err != nil {
		_ = e.Close()
		return nil, err
	}
	return s, nil
}

package storebench

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// childEnv marks a process started by RunChild.
const childEnv = "KVBENCH_STORE_CHILD"

// stepPrefix starts the child's progress lines on its stderr.
const stepPrefix = "kvbench-step "

// request is what RunChild sends its child on stdin.
type request struct {
	Engine, Data, Dir string
	Options           Options
}

// IsChild reports whether this process was started by RunChild: its main
// (or TestMain) must then call ChildMain and exit.
func IsChild() bool { return os.Getenv(childEnv) == "1" }

// RunChild measures engine in a child process running exe (this program,
// which calls ChildMain when IsChild) on the cells WriteData wrote to data,
// in dir. The child's peak RSS is the engine's: the child holds nothing
// but the cells, the reads' bookkeeping and the engine. Lines the child
// writes to stderr go to stderr, its progress steps to step.
func RunChild(exe, engine, data, dir string, o Options, step func(string), stderr io.Writer) Result {
	r, err := runChild(exe, request{engine, data, dir, o}, step, stderr)
	if err != nil {
		r = Result{Engine: engine, Err: fmt.Errorf("%s: %w", engine, err)}
	}
	if r.ErrText != "" {
		r.Err = errors.New(r.ErrText)
	}
	return r
}

func runChild(exe string, req request, step func(string), stderr io.Writer) (Result, error) {
	var in, out bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		return Result{}, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin, cmd.Stdout = &in, &out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return Result{}, err
	}
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	var tail []string // the child's last stderr lines, for the error
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, stepPrefix); ok {
			step(name)
			continue
		}
		fmt.Fprintln(stderr, line)
		tail = append(tail[max(len(tail)-4, 0):], line)
	}
	if err := cmd.Wait(); err != nil {
		return Result{}, fmt.Errorf("child process: %w: %s", err, strings.Join(tail, "; "))
	}
	var r Result
	if err := gob.NewDecoder(&out).Decode(&r); err != nil {
		return Result{}, fmt.Errorf("child process result: %w", err)
	}
	return r, nil
}

// ChildMain is the child process of RunChild: it reads the request from
// in, loads the cells, measures the engine and writes the Result to out;
// progress steps go to progress as lines.
func ChildMain(in io.Reader, out, progress io.Writer) error {
	var req request
	if err := gob.NewDecoder(in).Decode(&req); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	e, ok := EngineByName(req.Engine)
	if req.Engine == KvencSetName {
		e, ok = KvencSetEngine(req.Options.KvencSettings), true
	}
	if !ok {
		return fmt.Errorf("unknown engine %q", req.Engine)
	}
	kvs, err := ReadData(req.Data)
	if err != nil {
		return err
	}
	runtime.GC()
	debug.FreeOSMemory()
	base := resetPeakRSS()
	anon := watchAnon()
	r := Measure(e, req.Dir, kvs, req.Options, func(name string) { fmt.Fprintf(progress, "%s%s\n", stepPrefix, name) })
	r.BaseRSS, r.PeakRSS, r.PeakAnon = base, peakRSS(), anon()
	r.Err = nil // sent as ErrText
	runtime.KeepAlive(kvs)
	return gob.NewEncoder(out).Encode(r)
}

// WriteData writes kvs to path for ReadData: per cell the key's and the
// value's length as uvarints, then the key and the value.
func WriteData(path string, kvs []dataset.KV) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for _, kv := range kvs {
		buf = binary.AppendUvarint(buf[:0], uint64(len(kv.Key)))
		buf = binary.AppendUvarint(buf, uint64(len(kv.Value)))
		w.Write(buf)
		w.Write(kv.Key)
		w.Write(kv.Value)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadData reads what WriteData wrote; keys and values alias one buffer.
func ReadData(path string) ([]dataset.KV, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var kvs []dataset.KV
	for len(b) > 0 {
		kl, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("%s: bad key length", path)
		}
		vl, m := binary.Uvarint(b[n:])
		if m <= 0 || kl+vl > uint64(len(b)-n-m) {
			return nil, fmt.Errorf("%s: bad value length", path)
		}
		b = b[n+m:]
		kvs = append(kvs, dataset.KV{Key: b[:kl:kl], Value: b[kl : kl+vl : kl+vl]})
		b = b[kl+vl:]
	}
	return kvs, nil
}

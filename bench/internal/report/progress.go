package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress is a one-line progress bar. It draws only when its writer is a
// terminal (see IsTerminal) and only once the work has run for more than
// two seconds, so short steps and redirected output stay quiet.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	total   int
	done    int
	start   time.Time
	drawn   bool
	lastLen int
}

// NewProgress returns a bar over total steps writing to w; it is silent
// unless enabled.
func NewProgress(w io.Writer, total int, enabled bool) *Progress {
	return &Progress{w: w, on: enabled, total: total, start: time.Now()}
}

// StderrProgress returns a bar on os.Stderr, enabled when stderr is a TTY.
func StderrProgress(total int) *Progress {
	return NewProgress(os.Stderr, total, IsTerminal(os.Stderr))
}

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// AddTotal grows the number of steps (for work discovered on the way).
func (p *Progress) AddTotal(n int) {
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

// Step marks one step done and redraws with label as the current task.
func (p *Progress) Step(label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !p.on || time.Since(p.start) < 2*time.Second {
		return
	}
	const width = 30
	frac := 1.0
	if p.total > 0 {
		frac = min(1, float64(p.done)/float64(p.total))
	}
	fill := int(frac * width)
	line := fmt.Sprintf("\r[%s%s] %3.0f%% %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), frac*100, label)
	if n := len(line); n < p.lastLen {
		line += strings.Repeat(" ", p.lastLen-n)
	}
	p.lastLen = len(line)
	fmt.Fprint(p.w, line)
	p.drawn = true
}

// Done clears the bar's line if anything was drawn.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.lastLen))
		p.drawn = false
	}
}

// Package report turns benchmark results into what people read: aligned
// tables on stdout, one CSV file per table, PNG plots, a machine header and
// a progress bar on stderr.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Table is one result table. Name is the CSV file's base name (no
// extension); Title is printed above the table; Notes are printed below it.
type Table struct {
	Name    string
	Title   string
	Columns []string
	Rows    [][]string
	Notes   []string
}

// NewTable returns an empty table with the given columns.
func NewTable(name, title string, columns ...string) *Table {
	return &Table{Name: name, Title: title, Columns: columns}
}

// Add appends a row. It panics if the row has the wrong number of cells:
// that is a bug in the caller, not bad input.
func (t *Table) Add(cells ...string) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("report: table %s: row has %d cells, want %d", t.Name, len(cells), len(t.Columns)))
	}
	t.Rows = append(t.Rows, cells)
}

// Note adds a line printed under the table (not written to the CSV).
func (t *Table) Note(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// Fprint writes the table with aligned columns: the first column left
// aligned, the others right aligned (they hold numbers).
func (t *Table) Fprint(w io.Writer) error {
	widths := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		widths[i] = utf8.RuneCountInString(c)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "== %s\n", t.Title)
	}
	line := func(cells []string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	sep := make([]string, len(widths))
	for i, n := range widths {
		sep[i] = strings.Repeat("-", n)
	}
	line(sep)
	for _, r := range t.Rows {
		line(r)
	}
	for _, n := range t.Notes {
		b.WriteString("  " + n + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes the table to dir/Name.csv: a header row, then the rows.
func (t *Table) WriteCSV(dir string) (string, error) {
	path := filepath.Join(dir, t.Name+".csv")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := csv.NewWriter(f)
	if err := w.Write(t.Columns); err != nil {
		f.Close()
		return "", err
	}
	if err := w.WriteAll(t.Rows); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

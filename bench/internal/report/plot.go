package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bars is the data of a grouped bar chart: one group of bars per category
// on the x axis, one bar per series in each group.
type Bars struct {
	Title, YLabel string
	Categories    []string
	Series        []string
	// Values[s][c] is series s at category c; NaN draws no bar.
	Values [][]float64
}

// Line is one series of a line chart.
type Line struct {
	Name string
	X, Y []float64
}

// Lines is the data of a line chart.
type Lines struct {
	Title, XLabel, YLabel string
	Lines                 []Line
	LogX, LogY            bool
}

// SaveBars draws b as a PNG at path.
func SaveBars(path string, b Bars) error {
	p := plot.New()
	p.Title.Text = b.Title
	p.Y.Label.Text = b.YLabel
	p.Legend.Top = true
	n := len(b.Series)
	widthIn := min(16, max(8, float64(len(b.Categories))*float64(n)*0.3))
	// The x axis runs from -0.5 to len-0.5, so each category gets an equal
	// slot (the plot area is the width less about an inch of axis); a
	// group of bars fills three quarters of it.
	cats := float64(max(len(b.Categories), 1))
	w := vg.Points(max(2, 0.75*(widthIn-1)*72/cats/float64(max(n, 1))))
	for s, name := range b.Series {
		if len(b.Values[s]) != len(b.Categories) {
			return fmt.Errorf("report: bars %q: series %q has %d values for %d categories", b.Title, name, len(b.Values[s]), len(b.Categories))
		}
		vals := make(plotter.Values, len(b.Categories))
		for c, v := range b.Values[s] {
			if math.IsNaN(v) {
				v = 0 // missing: no bar
			}
			vals[c] = v
		}
		bar, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bar.LineStyle.Width = vg.Length(0)
		bar.Color = plotutil.Color(s)
		bar.Offset = w * vg.Length(float64(s)-float64(n-1)/2)
		p.Add(bar)
		p.Legend.Add(name, bar)
	}
	p.NominalX(b.Categories...)
	p.X.Min, p.X.Max = -0.5, cats-0.5
	// Labels wider than their slot (about 6 points a character) would
	// run into each other: tilt them.
	longest := 0
	for _, c := range b.Categories {
		longest = max(longest, len(c))
	}
	if float64(longest)*6 > (widthIn-1)*72/cats {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
	}
	p.Y.Max *= 1.3 // headroom for the legend
	return p.Save(vg.Length(widthIn)*vg.Inch, 5*vg.Inch, path)
}

// SaveLines draws l as a PNG at path.
func SaveLines(path string, l Lines) error {
	p := plot.New()
	p.Title.Text = l.Title
	p.X.Label.Text = l.XLabel
	p.Y.Label.Text = l.YLabel
	if l.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if l.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range l.Lines {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("report: lines %q: series %q has %d x and %d y", l.Title, s.Name, len(s.X), len(s.Y))
		}
		xy := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if (l.LogX && s.X[j] <= 0) || (l.LogY && s.Y[j] <= 0) || math.IsNaN(s.Y[j]) {
				continue
			}
			xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}

//go:build unix

package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart layout, in pixels.
const (
	chartWidth  = 960
	labelWidth  = 300 // the model names, right-aligned before the bars
	barMax      = 500 // the longest bar of a measure
	barHeight   = 16
	barGap      = 4
	titleHeight = 26
	blockGap    = 12
)

// barColor colors a bar by model family: the base row of each measure
// (stackless, or net/http) stands out.
func barColor(r Row) string {
	m := strings.ToLower(r.Model)
	switch {
	case r.Base:
		return "#1f77b4"
	case strings.HasPrefix(m, "stackless"):
		return "#6baed6"
	case strings.HasPrefix(m, "stackful"):
		return "#ff7f0e"
	case strings.Contains(m, "floor"):
		return "#bbbbbb"
	}
	return "#7f7f7f"
}

// chartSVG draws one block of horizontal bars per measure, each bar's
// length proportional to its value over the largest of the measure, with
// the value and the ratio to the base row written after it.
func chartSVG(rep *report) string {
	type block struct {
		title string
		rows  []Row
	}
	var blocks []block
	for _, r := range rep.Rows {
		if n := len(blocks); n > 0 && blocks[n-1].title == r.Measure {
			blocks[n-1].rows = append(blocks[n-1].rows, r)
			continue
		}
		blocks = append(blocks, block{r.Measure, []Row{r}})
	}
	var b strings.Builder
	y := 40
	for _, bl := range blocks {
		peak, low := 0.0, math.Inf(1)
		for _, r := range bl.rows {
			peak = max(peak, r.Value)
			if r.Value > 0 {
				low = min(low, r.Value)
			}
		}
		// A measure whose values span more than 50× is drawn on a log scale,
		// where the smallest value gets a tenth of the longest bar.
		logScale := low > 0 && peak/low > 50
		scale := ""
		if logScale {
			scale = ", log scale"
		}
		fmt.Fprintf(&b, `<text x="10" y="%d" font-weight="bold">%s (%s%s)</text>`+"\n", y+16, html.EscapeString(bl.title), html.EscapeString(bl.rows[0].Unit), scale)
		y += titleHeight
		for _, r := range bl.rows {
			w := 0.0
			switch {
			case logScale && r.Value > 0:
				w = barMax * (0.1 + 0.9*math.Log(r.Value/low)/math.Log(peak/low))
			case peak > 0:
				w = r.Value / peak * barMax
			}
			text := formatValue(r.Value) + " " + r.Unit
			if ratio := formatRatio(r); ratio != "" {
				text += "  " + ratio
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelWidth-8, y+barHeight-4, html.EscapeString(r.Model))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", labelWidth, y, max(w, 1), barHeight, barColor(r))
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(labelWidth)+max(w, 1)+6, y+barHeight-4, html.EscapeString(text))
			y += barHeight + barGap
		}
		y += blockGap
	}
	head := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartWidth, y, chartWidth, y)
	head += fmt.Sprintf(`<rect width="100%%" height="100%%" fill="white"/>`+"\n"+`<text x="10" y="22" font-size="13">%s</text>`+"\n",
		html.EscapeString(fmt.Sprintf("cobench, %s: %d × %s, %s", rep.Machine.Date, rep.Machine.CPUs, rep.Machine.Model, rep.Machine.Go)))
	return head + b.String() + "</svg>\n"
}

//go:build unix

package main

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Chart layout, in pixels. Text widths are estimated at charWidth per
// character of 12 px sans-serif (a little wide, so labels are never
// clipped).
const (
	barMax      = 460 // the longest bar of a measure
	barHeight   = 16
	barGap      = 4
	titleHeight = 26
	blockGap    = 12
	charWidth   = 7.0
	margin      = 10
	axisHeight  = 18 // the value axis under a measure's bars: ticks and labels
)

// axisTicks returns the values of a measure's value axis ticks: multiples
// of 1, 2 or 5 times a power of ten from 0 to peak, about five of them, on
// a linear axis; 1, 2 and 5 times each power of ten between low and peak on
// a log axis.
func axisTicks(low, peak float64, logScale bool) []float64 {
	var ticks []float64
	if logScale {
		for e := math.Floor(math.Log10(low)); math.Pow(10, e) <= peak; e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); v >= low*0.999 && v <= peak*1.001 {
					ticks = append(ticks, v)
				}
			}
		}
		return ticks
	}
	raw := peak / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	for i := 0; float64(i)*step <= peak*1.001; i++ {
		ticks = append(ticks, float64(i)*step)
	}
	return ticks
}

// tickLabel prints a tick's value: no trailing zeros, digit groups from
// 10,000 on.
func tickLabel(v float64) string {
	if v >= 10_000 {
		return groupDigits(strconv.FormatFloat(v, 'f', 0, 64))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// axisUnit is the label at the end of a value axis.
func axisUnit(unit string, logScale bool) string {
	if unit == "×" {
		unit = "× (ratio)"
	}
	if logScale {
		return unit + " (log)"
	}
	return unit
}

// familyColors colour bars by model family; the legend lists them in this
// order.
var familyColors = []struct{ family, color string }{
	{famStackless, "#1f77b4"},
	{famStackful, "#ff7f0e"},
	{famGo, "#2ca02c"},
	{famPeer, "#9467bd"},
	{famLoop, "#17becf"},
	{famFloor, "#bbbbbb"},
}

func barColor(r Row) string {
	f := family(r.Model)
	for _, fc := range familyColors {
		if fc.family == f {
			return fc.color
		}
	}
	return "#7f7f7f"
}

func textWidth(s string) float64 { return float64(len([]rune(s))) * charWidth }

// chartSVG draws one block of horizontal bars per measure, each bar's
// length proportional to its value over the largest of the measure (on a
// log scale when the values span more than 50×), with the value and the
// ratio to the base row after it; a legend of the colours, each block's
// direction of "better", and the run's machine, load and warnings at the
// top.
func chartSVG(rep *report) string {
	type block struct {
		title string
		rows  []Row
	}
	var blocks []block
	at := map[string]int{} // group and measure -> its block
	for _, r := range rep.Rows {
		k := r.Group + "\x00" + r.Measure
		if i, ok := at[k]; ok {
			blocks[i].rows = append(blocks[i].rows, r)
			continue
		}
		at[k] = len(blocks)
		blocks = append(blocks, block{r.Measure, []Row{r}})
	}
	valueText := func(r Row) string {
		text := formatValue(r.Value) + " " + r.Unit
		if ratio := formatRatio(r); ratio != "" {
			text += "  " + ratio
		}
		return text
	}
	title := func(bl block) string {
		i := slices.IndexFunc(bl.rows, func(r Row) bool { return !r.Skipped })
		if i < 0 {
			return bl.title + " (not measured)"
		}
		dir := "lower is better"
		if higherIsBetter(bl.rows[i].Unit) {
			dir = "higher is better"
		}
		return fmt.Sprintf("%s (%s, %s)", bl.title, bl.rows[i].Unit, dir)
	}
	header := fmt.Sprintf("cobench, %s: %d × %s, %s, load average %s at the start", rep.Machine.Date, rep.Machine.CPUs, rep.Machine.Model, rep.Machine.Go, rep.Machine.LoadAvg)
	labelW, textW, width := 0.0, 0.0, textWidth(header)
	for _, bl := range blocks {
		width = max(width, textWidth(title(bl))+10) // titles have a bold font: +10 %
		for _, r := range bl.rows {
			labelW = max(labelW, textWidth(r.Model))
			textW = max(textW, textWidth(valueText(r)))
		}
	}
	labelX := margin + labelW + 8 // the bars start here
	// textW at least the widest axis unit label, "calls/req (log)".
	width = math.Ceil(max(width+2*margin, labelX+barMax+6+max(textW, 130)+margin))

	var b strings.Builder
	y := 22.0
	// 13 px bold text runs about 1.2 times as wide as the estimate.
	wrapAt := int((width - 2*margin) / (charWidth * 1.2))
	line := func(color, weight, s string) {
		for _, l := range wrap(s, wrapAt) {
			fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-size="13" fill="%s" font-weight="%s">%s</text>`+"\n", margin, y, color, weight, html.EscapeString(l))
			y += 18
		}
	}
	line("black", "normal", header)
	if rep.Overall != "" {
		line("black", "bold", rep.Overall)
	}
	for _, w := range rep.Warnings {
		line("#c00000", "bold", "WARNING: "+w)
	}
	// The legend: a square per family, then what the ratio means.
	x := float64(margin)
	for _, fc := range familyColors {
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/>`+"\n", x, y-10, fc.color)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x+16, y, html.EscapeString(fc.family))
		x += 16 + textWidth(fc.family) + 18
	}
	y += 18
	line("#444444", "normal", "× = ratio to the measure's base row (the Go way where measured, else stackless); outlined bar = the base; bar lengths compare within a measure only")
	y += 4
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
		xOf := func(v float64) float64 {
			switch {
			case logScale && v > 0:
				return barMax * (0.1 + 0.9*math.Log(v/low)/math.Log(peak/low))
			case logScale:
				return 0
			case peak > 0:
				return v / peak * barMax
			}
			return 0
		}
		t := title(bl)
		if logScale {
			t += ", log scale"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", margin, y+16, html.EscapeString(t))
		y += titleHeight
		top := y
		var bars strings.Builder
		for _, r := range bl.rows {
			fmt.Fprintf(&bars, `<text x="%.0f" y="%.0f" text-anchor="end">%s</text>`+"\n", labelX-8, y+barHeight-4, html.EscapeString(r.Model))
			if r.Skipped {
				fmt.Fprintf(&bars, `<text x="%.0f" y="%.0f" fill="#c00000" font-style="italic">%s</text>`+"\n", labelX+6, y+barHeight-4, html.EscapeString(r.Note))
				y += barHeight + barGap
				continue
			}
			w := max(xOf(r.Value), 1)
			stroke := ""
			if r.Base {
				stroke = ` stroke="black" stroke-width="1.5"`
			}
			fmt.Fprintf(&bars, `<rect x="%.0f" y="%.0f" width="%.1f" height="%d" fill="%s"%s/>`+"\n", labelX, y, w, barHeight, barColor(r), stroke)
			fmt.Fprintf(&bars, `<text x="%.1f" y="%.0f">%s</text>`+"\n", labelX+w+6, y+barHeight-4, html.EscapeString(valueText(r)))
			y += barHeight + barGap
		}
		if peak > 0 {
			// The axes: grid lines under the bars at each tick, the value
			// axis below them with its ticks, their labels and the unit,
			// and the category axis at the bars' start.
			ticks := axisTicks(low, peak, logScale)
			fmt.Fprintf(&b, `<g class="x-axis" font-size="10" fill="#444444">`+"\n")
			lastEnd := math.Inf(-1)
			for _, v := range ticks {
				x := labelX + xOf(v)
				label := tickLabel(v)
				lw := textWidth(label) * 10 / 12
				if x-lw/2 < lastEnd+6 { // too close to the previous label
					continue
				}
				lastEnd = x + lw/2
				fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#e4e4e4"/>`+"\n", x, top-2, x, y)
				fmt.Fprintf(&b, `<line class="tick" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#444444"/>`+"\n", x, y, x, y+4)
				fmt.Fprintf(&b, `<text class="tick-label" x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x, y+14, html.EscapeString(label))
			}
			fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#444444"/>`+"\n", labelX, y, labelX+barMax, y)
			fmt.Fprintf(&b, `<text class="axis-unit" x="%.0f" y="%.0f">%s</text>`+"\n", max(labelX+barMax+8, lastEnd+8), y+14, html.EscapeString(axisUnit(bl.rows[slices.IndexFunc(bl.rows, func(r Row) bool { return !r.Skipped })].Unit, logScale)))
			fmt.Fprintf(&b, "</g>\n")
		}
		fmt.Fprintf(&b, `<line class="y-axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#444444"/>`+"\n", labelX, top-2, labelX, y)
		b.WriteString(bars.String())
		if peak > 0 {
			y += axisHeight
		}
		y += blockGap
	}
	if len(rep.Verdict) > 0 {
		y += 8
		line("black", "bold", "Verdict: the best of each group's headline measure, and its lead over each other family's best")
		for _, v := range rep.Verdict {
			var ms []string
			for _, m := range v.Margins {
				noise := "within noise"
				if m.Beyond {
					noise = "beyond noise"
				}
				ms = append(ms, fmt.Sprintf("%.2f× vs %s (%s)", m.Factor, m.Model, noise))
			}
			line("black", "normal", fmt.Sprintf("%s: %s, %s %s; %s", v.Group, v.Winner, formatValue(v.Value), v.Unit, strings.Join(ms, "; ")))
		}
	}
	height := math.Ceil(y)
	head := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	head += `<rect width="100%" height="100%" fill="white"/>` + "\n"
	return head + b.String() + "</svg>\n"
}

// wrap breaks s into lines of at most n characters at spaces.
func wrap(s string, n int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && len([]rune(cur.String()))+1+len([]rune(word)) > n {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

//go:build unix

package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// formatValue prints v with three or four significant digits, and digit
// groups from 10,000 on.
func formatValue(v float64) string {
	switch a := abs(v); {
	case a >= 10_000:
		return groupDigits(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// groupDigits puts commas between groups of three digits of an integer.
func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func formatRatio(r Row) string {
	switch {
	case r.Base:
		return "1 (base)"
	case r.Ratio == 0:
		return ""
	case r.Ratio >= 100:
		return strconv.FormatFloat(r.Ratio, 'f', 0, 64) + "×"
	case r.Ratio >= 10:
		return strconv.FormatFloat(r.Ratio, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(r.Ratio, 'f', 2, 64) + "×"
}

// machineLine says where and how the rows were measured.
func machineLine(rep *report) string {
	m := rep.Machine
	return fmt.Sprintf("Measured %s on %d × %s (nproc %d), %s %s, load average %s at the start; `%s` took %.0f s.",
		m.Date, m.CPUs, m.Model, m.CPUs, m.Go, m.OSArch, m.LoadAvg, rep.Command, rep.Seconds)
}

// writeMarkdown writes the machine line and one table; a measure's group
// and name are printed on its first row only.
func writeMarkdown(w io.Writer, rep *report) {
	fmt.Fprintln(w, machineLine(rep))
	fmt.Fprintln(w)
	for _, warning := range rep.Warnings {
		fmt.Fprintf(w, "> **WARNING: %s.**\n\n", warning)
	}
	fmt.Fprintln(w, baseConvention)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| group | measure | model | value | unit | ratio to base | reference (design brief §5; not measured in this run) | note |")
	fmt.Fprintln(w, "|---|---|---|--:|---|--:|---|---|")
	var group, measure string
	for _, r := range rep.Rows {
		g, m := r.Group, r.Measure
		if g == group {
			g = ""
			if m == measure {
				m = ""
			}
		}
		group, measure = r.Group, r.Measure
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			g, cell(m), cell(r.Model), valueCell(r), r.Unit, formatRatio(r), cell(r.Reference), cell(r.Note))
	}
	writeVerdicts(w, rep.Verdict)
	if rep.Overall != "" {
		fmt.Fprintf(w, "\n**%s**\n", rep.Overall)
	}
}

// valueCell is a row's value as the table prints it: "—" for a skipped row.
func valueCell(r Row) string {
	if r.Skipped {
		return "—"
	}
	return formatValue(r.Value)
}

// cell escapes the characters a table cell cannot hold.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func writeCSV(w io.Writer, rep *report) {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group", "measure", "model", "value", "unit", "ratio", "base", "reference", "note"})
	for _, r := range rep.Rows {
		value := strconv.FormatFloat(r.Value, 'g', 6, 64)
		if r.Skipped {
			value = "" // the note says why
		}
		cw.Write([]string{r.Group, r.Measure, r.Model, value, r.Unit,
			strconv.FormatFloat(r.Ratio, 'g', 4, 64), strconv.FormatBool(r.Base), r.Reference, r.Note})
	}
	cw.Flush()
}

func writeJSON(w io.Writer, rep *report) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
}

// Package display shows rich output from gnnrepl sessions: HTML, Markdown,
// PNG and SVG images, JSON, tables for graphs and tensors, plots drawn with
// gonum.org/v1/plot (loss curves, degree histograms) and progress bars.
//
// Each session has its own Output, made from the session's options, and
// the functions that show output (Publish, HTML, Show, NewHandle,
// NewProgress, ...) called in its cells use it. In a Jupyter notebook the
// kernel gives the session a Publisher that sends to the running cell:
// every function here then sends a display_data message (a MIME bundle, as
// IPython.display does), and Handles replace an earlier output in place
// with update_display_data. In the terminal shell there is no publisher:
// the text/plain part of each bundle is printed on the session's standard
// output (for images that is a one-line note), and progress bars are drawn
// on its standard error with github.com/schollz/progressbar. Compiled code
// calling these functions outside a session prints to os.Stdout and
// os.Stderr the same way.
//
//	display.Show(g)                         // graph summary table
//	display.HTML("<b>bold</b>")
//	png, err := display.DegreeHistogram(g)
//	display.PNG(png)
//
//	curve := display.NewLossCurve("GraphSAGE on Cora")
//	bar := display.NewProgress(loader.Len(), "epoch 0")
//	... curve.Add("loss", l); curve.Show(); bar.Add(1) ...
//	bar.Finish()
//
// Every function is non-generic and usable from the interpreter.
//
// Error policy: misuse (an empty display id, a negative total) panics with
// an error wrapping ErrArgument. Functions that show output return nothing,
// so that a cell ending in display.HTML(...) shows no value; an error from
// the publisher (a closed kernel connection) is written to standard error
// as a "display: ..." line instead. Rendering functions that return data
// (LinePlot, DegreeHistogram) return wrapped errors.
package display

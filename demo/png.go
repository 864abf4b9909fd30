package demo

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// The demo's charts are real PNGs drawn at run time, so a result carries
// genuine image bytes whose size the platform and the tap both measure.

// barChartPNG draws a small bar chart of the values (0..1).
func barChartPNG(values []float64, fg color.RGBA) []byte {
	const w, h = 96, 48
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Bounds(), color.RGBA{250, 250, 250, 255})
	barW := w / (len(values)*2 + 1)
	for i, v := range values {
		x0 := barW * (2*i + 1)
		top := h - 2 - int(v*float64(h-6))
		fill(img, image.Rect(x0, top, x0+barW, h-2), fg)
	}
	fill(img, image.Rect(0, h-2, w, h), color.RGBA{60, 60, 60, 255})
	return encodePNG(img)
}

// splitPNG draws a horizontal stacked bar of shares (summing to about 1).
func splitPNG(shares []float64, colors []color.RGBA) []byte {
	const w, h = 96, 24
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Bounds(), color.RGBA{250, 250, 250, 255})
	x := 0
	for i, s := range shares {
		next := x + int(s*float64(w))
		if i == len(shares)-1 {
			next = w
		}
		fill(img, image.Rect(x, 2, next, h-2), colors[i%len(colors)])
		x = next
	}
	return encodePNG(img)
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // encoding an in-memory RGBA image cannot fail
	return buf.Bytes()
}

package main

func main() {
	println(1.5, -0.25, 100.0)
	var f float32 = 2
	println(f)
}

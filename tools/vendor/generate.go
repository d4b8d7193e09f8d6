package main

//go:generate go run . -dir ../..

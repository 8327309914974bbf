// Package e2e drives kplane the way a user does — with the real kubectl and
// raw HTTPS — and asserts on what the user would see.
package e2e

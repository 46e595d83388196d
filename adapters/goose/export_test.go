package goose

// Schema is goose's schema for the package's tests.
const Schema = schema

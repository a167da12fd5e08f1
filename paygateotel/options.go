package paygateotel

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures New. It is an interface, as otelhttp's options are, so
// that options can be added without changing New.
type Option interface {
	apply(*config)
}

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTracerProvider sets the provider of the observer's tracer; the
// default is the global one (otel.GetTracerProvider) at the time of New.
func WithTracerProvider(p trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tracerProvider = p })
}

// WithMeterProvider sets the provider of the observer's meter; the default
// is the global one (otel.GetMeterProvider) at the time of New.
func WithMeterProvider(p metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meterProvider = p })
}

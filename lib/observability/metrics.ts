import { Metrics as EmfMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Logger } from './logger.js';
// Also read by serverless/stack.cjs, whose alarms watch these metrics.
import metricNames from './metric-names.json' with { type: 'json' };

// Business metrics as CloudWatch Embedded Metric Format: log lines that CloudWatch turns into
// metrics, so counting costs no request at run time. Dimensions are the service and, for
// `limited`, the limit's name: a handful of values, so the metric count stays bounded.

export type MetricName =
  | 'registrations'
  | 'sms_queued'
  | 'sms_sent'
  | 'sms_failed'
  | 'sms_expired'
  | 'sms_text_shortened'
  | 'phone_change_notices_failed'
  | 'security_warnings_failed'
  | 'codes_verified'
  | 'codes_failed'
  | 'limited'
  | 'deletions_requested'
  | 'accounts_erased'
  | 'events_published'
  | 'events_put_again'
  | 'events_dead_lettered';

/** The limits a `limited` metric and audit event name (docs/security.md, "Every limit"). */
export type LimitName =
  | 'address_sends'
  | 'address_verifies'
  | 'phone_interval'
  | 'phone_hourly'
  | 'phone_lockout'
  | 'number_range'
  | 'company_hourly'
  | 'staff_lookups';

/**
 * A container's metrics: Powertools' EMF writer and the request it is counting for, whose id
 * every EMF line carries, as every log line does.
 */
export class Metrics {
  private requestId: string | undefined;
  constructor(private readonly emf: EmfMetrics) {}

  startRequest(requestId: string): void {
    this.requestId = requestId;
    this.emf.addMetadata('function_request_id', requestId);
  }

  count(name: MetricName, limit?: LimitName): void {
    if (limit) {
      // Its own EMF line: the dimension belongs to this data point only.
      const single = this.emf.singleMetric();
      if (this.requestId) single.addMetadata('function_request_id', this.requestId);
      single.addDimension('limit', limit).addMetric(name, MetricUnit.Count, 1);
      return;
    }
    this.emf.addMetric(name, MetricUnit.Count, 1);
  }

  /** Counts several at once (a batch's events); nothing for none. */
  add(name: MetricName, value: number): void {
    if (value > 0) this.emf.addMetric(name, MetricUnit.Count, value);
  }

  /** Writes what the request counted as one EMF log line, if it counted anything. */
  publish(): void {
    if (this.emf.hasStoredMetrics()) this.emf.publishStoredMetrics();
  }
}

export function createMetrics(logger: Logger): Metrics {
  return new Metrics(new EmfMetrics({ namespace: metricNames.namespace, serviceName: metricNames.service, logger }));
}

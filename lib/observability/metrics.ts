import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Logger } from './logger.js';

// Business metrics as CloudWatch Embedded Metric Format: log lines that CloudWatch turns into
// metrics, so counting costs no request at run time. Dimensions are the service and, for
// `limited`, the limit's name: a handful of values, so the metric count stays bounded.

export const METRICS_NAMESPACE = 'WalletAuth';

export type MetricName = 'registrations' | 'sms_sent' | 'sms_failed' | 'codes_verified' | 'codes_failed' | 'limited';

/** The limits a `limited` metric and audit event name (docs/security.md, "Every limit"). */
export type LimitName =
  | 'address_sends'
  | 'address_verifies'
  | 'phone_interval'
  | 'phone_hourly'
  | 'phone_lockout'
  | 'number_range'
  | 'company_hourly';

export function createMetrics(logger: Logger): Metrics {
  return new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'wallet-auth', logger });
}

/** The request each Metrics is counting for: its EMF lines carry the id, as every log line does. */
const requestIds = new WeakMap<Metrics, string>();

export function startRequestMetrics(metrics: Metrics, requestId: string): void {
  requestIds.set(metrics, requestId);
  metrics.addMetadata('function_request_id', requestId);
}

export function countMetric(metrics: Metrics, name: MetricName, limit?: LimitName): void {
  if (limit) {
    // Its own EMF line: the dimension belongs to this data point only.
    const single = metrics.singleMetric();
    const requestId = requestIds.get(metrics);
    if (requestId) single.addMetadata('function_request_id', requestId);
    single.addDimension('limit', limit).addMetric(name, MetricUnit.Count, 1);
    return;
  }
  metrics.addMetric(name, MetricUnit.Count, 1);
}

export type { Metrics };

import type { Payload } from '@temporalio/common';
import {
  arrayFromPayloads,
  defaultFailureConverter,
  defaultPayloadConverter,
  ensureApplicationFailure,
} from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** A failure as it crosses the workflow boundary (proto form). */
export type ProtoFailure = temporal.api.failure.v1.IFailure;

/** Converts values to payloads with the default converter, as a default-configured client or worker does. */
export function toPayloads(values: readonly unknown[]): Payload[] {
  return values.map((value) => defaultPayloadConverter.toPayload(value));
}

/** Converts one value to a payload with the default converter. */
export function toPayload(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value);
}

/** Converts payloads back to values with the default converter. */
export function fromPayloads(payloads: Payload[] | null | undefined): unknown[] {
  return arrayFromPayloads(defaultPayloadConverter, payloads);
}

/** Converts one payload (or none, meaning `undefined`) back to a value. */
export function fromPayload(payload: Payload | null | undefined): unknown {
  return payload == null ? undefined : defaultPayloadConverter.fromPayload(payload);
}

/** Serialized size of a payload (data and metadata), the figure the server's 2 MB limit applies to. */
export function payloadBytes(payload: Payload): number {
  return temporal.api.common.v1.Payload.encode(payload).finish().length;
}

/** Converts a thrown activity error to a failure the way the SDK's activity worker does. */
export function activityErrorToFailure(error: unknown): ProtoFailure {
  return defaultFailureConverter.errorToFailure(ensureApplicationFailure(error), defaultPayloadConverter);
}

/** Converts any error to a failure with the default failure converter. */
export function errorToFailure(error: unknown): ProtoFailure {
  return defaultFailureConverter.errorToFailure(error, defaultPayloadConverter);
}

/** Converts a failure to the SDK error class it stands for (ApplicationFailure, CancelledFailure...). */
export function failureToError(failure: ProtoFailure): Error {
  return defaultFailureConverter.failureToError(failure, defaultPayloadConverter);
}

/** The first application failure `type` found walking down the failure's cause chain. */
export function applicationFailureType(failure: ProtoFailure | null | undefined): string | undefined {
  for (let current = failure; current; current = current.cause) {
    if (current.applicationFailureInfo?.type) return current.applicationFailureInfo.type;
  }
  return undefined;
}

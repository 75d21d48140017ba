/**
 * The SDK clients Airless uses, built in one place: retries capped, and for tests or
 * local servers the endpoints, fake credentials and the S3 settings those servers need.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface ClientOptions {
  region?: string;
  /** Service endpoints (DynamoDB Local, local-aws-sqs, s3rver, LocalStack...). */
  endpoints?: { dynamodb?: string; sqs?: string; s3?: string; scheduler?: string; ssm?: string; secretsmanager?: string };
  /** Explicit credentials; with endpoints and none given, fake ones are used. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** @default 3 */
  maxAttempts?: number;
}

export interface AwsClients {
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
  s3: S3Client;
  scheduler: SchedulerClient;
  /** Variables (SSM Parameter Store) and connections (Secrets Manager). */
  ssm: SSMClient;
  secretsManager: SecretsManagerClient;
}

// s3rver accepts only this pair; DynamoDB Local and local-aws-sqs accept anything.
const FAKE_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * @example
 * const aws = makeClients(); // in Lambda: region and credentials from the environment
 * const local = makeClients({ endpoints: { sqs: 'http://localhost:9324', s3: 'http://localhost:4569' } });
 */
export function makeClients(opts: ClientOptions = {}): AwsClients {
  const endpoints = opts.endpoints ?? {};
  const local = Object.values(endpoints).some((e) => e !== undefined);
  const base = {
    maxAttempts: opts.maxAttempts ?? 3,
    // Local endpoints need some region to sign with; in AWS the environment provides it.
    ...(opts.region ? { region: opts.region } : local ? { region: 'us-east-1' } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : local ? { credentials: FAKE_CREDENTIALS } : {}),
  };
  return {
    dynamodb: new DynamoDBClient({ ...base, ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb } : {}) }),
    sqs: new SQSClient({ ...base, ...(endpoints.sqs ? { endpoint: endpoints.sqs } : {}) }),
    s3: new S3Client({
      ...base,
      ...(endpoints.s3
        ? {
            endpoint: endpoints.s3,
            forcePathStyle: true,
            // s3rver stores streamed bodies corrupted when the SDK adds flexible checksums.
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            responseChecksumValidation: 'WHEN_REQUIRED' as const,
          }
        : {}),
    }),
    scheduler: new SchedulerClient({ ...base, ...(endpoints.scheduler ? { endpoint: endpoints.scheduler } : {}) }),
    ssm: new SSMClient({ ...base, ...(endpoints.ssm ? { endpoint: endpoints.ssm } : {}) }),
    secretsManager: new SecretsManagerClient({ ...base, ...(endpoints.secretsmanager ? { endpoint: endpoints.secretsmanager } : {}) }),
  };
}

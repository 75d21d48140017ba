/**
 * AWS jobs longer than a Lambda, each resumed by its own end event: a Glue job, an EMR
 * Serverless Spark run, an ECS task on Fargate, a Batch job, a Step Functions execution, an
 * Athena query whose result location the next task reads, and an asynchronous Lambda.
 * Nothing runs or polls while a job runs. Locally, `--mock-operators` simulates the jobs:
 *   npx airless run examples/dags --dag nightly_jobs --time-warp --mock-operators
 * On AWS, name these resources in `new Airless(…, { jobs })` (docs/jobs.md).
 */
import { athenaQuery, batchSubmitJob, dag, ecsRunTask, emrServerlessJobRun, glueStartJobRun, lambdaInvoke, sfnStartExecution } from 'airless';

export default dag('nightly_jobs', {
  schedule: '0 2 * * *', startDate: '2026-01-01T00:00:00Z',
  params: {
    account: '123456789012', region: 'us-east-1', sparkApp: '00fabc123456789', subnet: 'subnet-0abc',
    bucket: 'acme-lake', results: 's3://acme-athena-results/nightly/',
  },
  defaultArgs: { retries: 1, retryDelay: '5m' },
}, ({ task }) => {
  const extract = task('extract', glueStartJobRun({ JobName: 'orders_extract', Arguments: { '--ds': '{{ ds }}' } }, { timeout: '2h' }));

  const features = task('features', emrServerlessJobRun({
    applicationId: '{{ params.sparkApp }}',
    executionRoleArn: 'arn:aws:iam::{{ params.account }}:role/spark-exec',
    jobDriver: { sparkSubmit: { entryPoint: 's3://{{ params.bucket }}/code/features.py', entryPointArguments: ['--ds', '{{ ds }}'] } },
  }));

  const train = task('train', ecsRunTask({
    cluster: 'ml', taskDefinition: 'train', launchType: 'FARGATE',
    networkConfiguration: { awsvpcConfiguration: { subnets: ['{{ params.subnet }}'], assignPublicIp: 'DISABLED' } },
    overrides: { containerOverrides: [{ name: 'main', command: ['train', '--ds', '{{ ds }}'] }] },
  }, { timeout: '6h' }));

  const score = task('score', batchSubmitJob({
    jobQueue: 'cpu', jobDefinition: 'score',
    containerOverrides: { command: ['score', '--ds', '{{ ds }}'] },
  }));

  const publish = task('publish', sfnStartExecution({
    stateMachineArn: 'arn:aws:states:{{ params.region }}:{{ params.account }}:stateMachine:publish-scores',
    input: { date: '{{ ds }}' },
  }));

  const report = task('report', athenaQuery({
    QueryString: "SELECT model, avg(score) AS score FROM scores WHERE ds = '{{ ds }}' GROUP BY model",
    WorkGroup: 'reports', QueryExecutionContext: { Database: 'ml' },
    ResultConfiguration: { OutputLocation: '{{ params.results }}' },
  }));

  // An input computed in the try: the Athena result's location, pulled from the report task.
  const notify = task('notify', lambdaInvoke(async (ctx) => ({
    FunctionName: 'send-report',
    Payload: { date: ctx.ds, csv: (await ctx.xcom.pull<{ outputLocation: string }>('report')).outputLocation },
  })));

  extract.before(features).before(train).before(score).before(publish);
  score.before(report).before(notify);
});

// What each function may do, and nothing more: serverless/stack.cjs builds one IAM role per
// function from this list, and tests/deploy/function-permissions.test.ts runs every flow of each
// function against DynamoDB Local and checks it does exactly this (no less, or AWS refuses it; no
// more, or the role grants what nobody uses).
//   table             DynamoDB actions on the table (a transaction needs the action of each of its
//                     items; a BatchWriteItem needs BatchWriteItem)
//   recordSessionUse  UpdateItem of last_used_at only (a session's last use), nothing else of any item
//   secret            ssm:GetParameter on the server secret's parameter (keys of PINs, codes, cursors, phone refs)
//   sms               sns:Publish to phone numbers
module.exports = {
  userRegister: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'Query', 'BatchWriteItem'],
    secret: true,
  },
  loginPhone: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secret: true,
    sms: true,
  },
  verifyOtp: {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secret: true,
  },
  logout: {
    table: ['GetItem', 'DeleteItem', 'Query', 'BatchWriteItem'],
    recordSessionUse: true,
  },
  // Reads only, but for the one attribute that records a session's use (docs/operations.md).
  referralProgram: {
    table: ['GetItem', 'Query'],
    recordSessionUse: true,
    secret: true,
  },
  notFound: {},
};

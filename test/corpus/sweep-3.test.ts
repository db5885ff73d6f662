import { sweepShard } from './sweep-shard.js';

sweepShard(2);

import { marksReporter } from './marks.mjs';

export default marksReporter(1);

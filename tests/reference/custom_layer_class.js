'use strict';
// The custom layer of gen_custom_layer.js, written as a tfjs user writes one, and registered
// (check_layers_model.js requires it when told to, to load models that use it).
const tf = require('@tensorflow/tfjs');

class ScaledTanh extends tf.layers.Layer {
  constructor(config) {
    super(config);
    this.units = config.units;
    this.l2 = config.l2;
  }

  build(inputShape) {
    const last = inputShape[inputShape.length - 1];
    this.kernel = this.addWeight('kernel', [last, this.units], 'float32',
                                 tf.initializers.glorotUniform({seed: 1}),
                                 tf.regularizers.l2({l2: this.l2}));
    this.alpha = this.addWeight('alpha', [this.units], 'float32', tf.initializers.ones());
  }

  computeOutputShape(inputShape) {
    return [inputShape[0], this.units];
  }

  call(inputs, kwargs) {
    return tf.tidy(() => {
      const x = Array.isArray(inputs) ? inputs[0] : inputs;
      const energy = x.square().sum(-1, true);
      return x.matMul(this.kernel.read()).tanh().mul(this.alpha.read()).add(energy.mul(0.1));
    });
  }

  getConfig() {
    const config = super.getConfig();
    Object.assign(config, {units: this.units, l2: this.l2});
    return config;
  }

  static get className() {
    return 'ScaledTanh';
  }
}
tf.serialization.registerClass(ScaledTanh);

module.exports = {ScaledTanh};
